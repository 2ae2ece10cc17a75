"""Topics deleted while their followers replicate them, on three real nodes (issue 39 item 6): every
node lets go of a deleted topic's partitions in its replica fetchers before it stops hosting them
(Kafka's removeFetcherForPartitions, then the log's deletion), so no fetcher ever asks for a partition
its broker no longer has. Before, a fetcher that did logged a `KeyError(... is no longer hosted here)`
traceback and paused every partition it fetched, live topics included, for a backoff.

A producer keeps writing to a live topic and to topics that are deleted two at a time; at the end no
node's log holds a fetcher error, and the live topic's three replicas are all in sync."""

from __future__ import annotations

import threading

import confluent_kafka
import pytest
from confluent_kafka.admin import NewTopic

from tests.cluster.kraft_cluster import started_cluster
from tests.cluster.test_kraft_cluster import topic_on
from tests.helpers import unique_topic, wait_until

pytestmark = pytest.mark.timeout(300)

DOOMED, PARTITIONS = 12, 6


class Writer(threading.Thread):
    """acks=all to every topic it is told of, until stopped; a deleted topic's errors are expected."""

    def __init__(self, bootstrap: str) -> None:
        super().__init__(daemon=True)
        self.producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "acks": "all",
                                                  "linger.ms": 5,
                                                  "message.timeout.ms": 10000})
        self.topics: list[str] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        number = 0
        while not self.stopping.is_set():
            for topic in list(self.topics):
                try:
                    self.producer.produce(topic, str(number).encode())
                except (BufferError, confluent_kafka.KafkaException):
                    pass
            number += 1
            self.producer.poll(0.002)

    def stop(self) -> None:
        self.stopping.set()
        self.join(30)
        self.producer.flush(15)


def in_sync(admin, topic: str) -> bool:
    found = topic_on(admin, topic)
    return found is not None and bool(found.partitions) and all(len(p.isr) == 3 for p in found.partitions)


def test_topics_deleted_under_replication_leave_no_fetcher_error_and_the_live_topic_in_sync(tmp_path,
                                                                                            request):
    with started_cluster(tmp_path, request) as cluster:
        admin = confluent_kafka.admin.AdminClient({"bootstrap.servers": cluster.bootstrap})
        live = unique_topic("live")
        doomed = [unique_topic(f"doomed-{i}") for i in range(DOOMED)]
        for name in [live, *doomed]:
            wait_until(lambda name=name: _created(admin, NewTopic(name, PARTITIONS, 3)), timeout=60,
                       message=f"topic {name} created", interval=0.5)
        writer = Writer(cluster.bootstrap)
        writer.topics = [live, *doomed]
        writer.start()
        try:
            for topic in doomed:  # one at a time, each while its followers are busy copying it
                wait_until(lambda topic=topic: _has_records(cluster, topic), timeout=60,
                           message=f"records in {topic}", interval=0.2)
                admin.delete_topics([topic])[topic].result(30)
                writer.topics = [t for t in writer.topics if t != topic]
        finally:
            writer.stop()
        with cluster.nodes[1].admin() as ours:
            wait_until(lambda: in_sync(ours, live), timeout=60, message="the live topic's ISR of three")
        for node_id, node in cluster.nodes.items():
            output = node.output()
            assert "fetcher error" not in output and "no longer hosted" not in output, (
                f"node {node_id} logged a fetcher error:\n" + "\n".join(
                    line for line in output.splitlines() if "fetcher error" in line
                    or "no longer hosted" in line)[:4000])


def _created(admin, topic: NewTopic) -> bool:
    try:
        admin.create_topics([topic])[topic.topic].result(15)
        return True
    except confluent_kafka.KafkaException as e:
        return "TOPIC_ALREADY_EXISTS" in str(e)


def _has_records(cluster, topic: str) -> bool:
    consumer = confluent_kafka.Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "watermarks"})
    try:
        return all(consumer.get_watermark_offsets(confluent_kafka.TopicPartition(topic, p), timeout=5)[1] > 0
                   for p in range(PARTITIONS))
    except confluent_kafka.KafkaException:
        return False
    finally:
        consumer.close()
