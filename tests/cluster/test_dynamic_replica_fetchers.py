"""num.replica.fetchers changed for the whole cluster while it replicates (KIP-226, docs/dynamic_configs.md),
on three real nodes: each follower spreads its partitions over the new fetcher threads without a restart
(its log says so: ReplicaFetcherThread-1-<leader> starts), every record an acks=all producer sent is
acknowledged, and every partition keeps its full ISR."""

from __future__ import annotations

import pytest

from kafka.clients.admin import BROKER_RESOURCE, SET, NewTopic
from kafka.clients.producer import KafkaProducer
from tests.cluster.kraft_cluster import started_cluster
from tests.cluster.test_replication import describe_partition
from tests.helpers import unique_topic, wait_until

pytestmark = pytest.mark.timeout(300)
PARTITIONS = 6


def test_replica_fetchers_resized_on_a_running_cluster(tmp_path, request):
    with started_cluster(tmp_path, request) as cluster:
        cluster.await_leader(cluster.nodes[1])
        topic = unique_topic("fetched")
        with cluster.nodes[1].admin() as admin:
            admin.create_topics([NewTopic(topic, PARTITIONS, 3)])
        with KafkaProducer({"bootstrap.servers": cluster.bootstrap, "acks": "all"}) as producer:
            sent = [producer.send(topic, f"before-{i}".encode(), partition=i % PARTITIONS) for i in range(60)]
            with cluster.nodes[1].admin() as admin:
                admin.incremental_alter_configs(BROKER_RESOURCE, "", [("num.replica.fetchers", SET, "2")])
            sent += [producer.send(topic, f"after-{i}".encode(), partition=i % PARTITIONS) for i in range(60)]
            assert [f.exception(60) for f in sent] == [None] * len(sent)
        for node in cluster.nodes.values():
            wait_until(lambda n=node: "ReplicaFetcherThread-1-" in n.output(), timeout=30,
                       message=f"node {node.node_id}'s second fetcher thread")
        for partition in range(PARTITIONS):
            wait_until(lambda p=partition: len(describe_partition(cluster, topic, p).isr) == 3, timeout=30,
                       message=f"partition {partition}'s full ISR")
