"""Replication across three real nodes: acks=all, kill -9 of the leader, and nothing acknowledged lost.

Seed 004's write path, checked the way a user would: a confluent-kafka producer writes a stream of
numbered records with acks=all to a topic with replication factor 3 and min.insync.replicas=2. The
leader is killed with SIGKILL mid-stream, twice; each time the controller elects a new leader from
the ISR, the producer carries on, the killed node restarts, truncates if it must, catches up and
rejoins the ISR. At the end every acknowledged number is read back (0 lost), and the three replicas'
logs hold the same batches.

The others, each with real processes too: a group coordinator failing over with its committed
offsets (__consumer_offsets has replication factor 3), kafka-leader-election moving leadership back
to the preferred replica, kafka-reassign-partitions moving a partition to other brokers, and
acks=all refused with NOT_ENOUGH_REPLICAS when the ISR is smaller than min.insync.replicas.
"""

from __future__ import annotations

import json
import threading

import confluent_kafka
import pytest

from kafka.clients.admin import NewTopic
from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.utils.java_hash import java_string_hash, kafka_abs
from kafka.utils.time import MockTime
from tests.cluster.kraft_cluster import KRaftCluster, run_tool, started_cluster
from tests.cluster.test_kraft_cluster import created, topic_on
from tests.helpers import unique_topic, wait_until
from tests.integration.test_group_protocol import find_coordinator
from tests.wire import WireClient

pytestmark = pytest.mark.timeout(400)

# Faster than Kafka's defaults so the test takes seconds, not minutes: a dead broker is fenced after
# 4 s without heartbeats, and a follower that stopped fetching leaves the ISR after 3 s.
FAST_FAILURE_DETECTION = {"broker.session.timeout.ms": "4000", "broker.heartbeat.interval.ms": "500",
                          "replica.lag.time.max.ms": "3000"}


@pytest.fixture
def cluster(tmp_path, request):
    with started_cluster(tmp_path, request, FAST_FAILURE_DETECTION) as cluster:
        yield cluster


class NumberedProducer(threading.Thread):
    """Sends 0, 1, 2, ... with acks=all and keeps the numbers the cluster acknowledged."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        super().__init__(daemon=True)
        self.topic = topic
        self.producer = confluent_kafka.Producer({
            "bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5, "message.timeout.ms": 120000,
            "retry.backoff.ms": 200, "topic.metadata.refresh.interval.ms": 1000})
        self.acknowledged: list[int] = []
        self.errors: list[str] = []
        self._stopping = threading.Event()

    def _delivered(self, error, message) -> None:
        if error is None:
            self.acknowledged.append(int(message.value()))
        else:
            self.errors.append(str(error))

    def run(self) -> None:
        number = 0
        while not self._stopping.is_set():
            try:
                self.producer.produce(self.topic, str(number).encode(), on_delivery=self._delivered)
                number += 1
            except BufferError:  # the local queue is full while there is no leader: wait for acks
                pass
            self.producer.poll(0.001 if number % 20 else 0.005)

    def stop(self) -> None:
        self._stopping.set()
        self.join(30)
        self.producer.flush(120)


def watermarks(consumer: confluent_kafka.Consumer, topic: str) -> tuple[int, int] | None:
    """(low, high), or None while the brokers' metadata is still catching up with a leadership change
    (NOT_LEADER_OR_FOLLOWER from a broker that has not heard yet): a client retries."""
    try:
        return consumer.get_watermark_offsets(confluent_kafka.TopicPartition(topic, 0), timeout=10)
    except confluent_kafka.KafkaException:
        return None


def describe(cluster: KRaftCluster, topic: str, exclude: int | None = None):
    for node in cluster.nodes.values():
        if node.running and node.is_broker and node.node_id != exclude:
            with node.admin() as admin:
                found = topic_on(admin, topic)
            if found is not None:
                return found.partitions[0]
    return None


def read_all(cluster: KRaftCluster, topic: str) -> tuple[set[int], int]:
    """Every number in the partition, read by a consumer up to the high watermark; and that HW."""
    consumer = confluent_kafka.Consumer({"bootstrap.servers": cluster.bootstrap,
                                         "group.id": unique_topic("check"),
                                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.assign([confluent_kafka.TopicPartition(topic, 0, 0)])
    _, high = wait_until(lambda: watermarks(consumer, topic), timeout=30, message="ListOffsets", interval=0.5)
    seen: set[int] = set()
    position = 0
    while position < high:
        message = consumer.poll(5)
        if message is not None and not message.error():
            seen.add(int(message.value()))
            position = message.offset() + 1
    consumer.close()
    return seen, high


def test_kill_9_of_the_leader_twice_loses_no_acknowledged_record(cluster):
    topic = unique_topic("replicated")
    cluster.await_leader(cluster.nodes[1])
    with cluster.nodes[1].admin() as admin:
        wait_until(lambda: created(admin, NewTopic(topic, 1, 3, {"min.insync.replicas": "2"})), timeout=60,
                   message="CreateTopics", interval=0.5)
    wait_until(lambda: (p := describe(cluster, topic)) is not None and len(p.isr) == 3, timeout=30,
               message="a leader and a full ISR")
    producer = NumberedProducer(cluster.bootstrap, topic)
    producer.start()
    try:
        for failover in (1, 2):
            acked_before = len(producer.acknowledged)
            wait_until(lambda n=acked_before: len(producer.acknowledged) >= n + 500, timeout=60,
                       message="acknowledged records flowing")
            leader = describe(cluster, topic).leader
            cluster.nodes[leader].kill()  # SIGKILL: no controlled shutdown, no flush
            killed_at = len(producer.acknowledged)

            # The controller fences it, elects a new leader from the ISR, and the ISR shrinks (visible
            # in kafka-topics --describe); the producer carries on against the new leader.
            after = wait_until(lambda old=leader: (p := describe(cluster, topic, exclude=old)) is not None
                               and p.leader not in (-1, old) and old not in p.isr and p,
                               timeout=60,
                               message=f"failover {failover}: a new leader without broker {leader}")
            assert len(after.isr) == 2
            wait_until(lambda n=killed_at: len(producer.acknowledged) >= n + 500, timeout=60,
                       message=f"failover {failover}: acknowledgements from the new leader")

            # The killed broker restarts, truncates what it must, catches up and rejoins the ISR.
            cluster.nodes[leader].start()
            wait_until(lambda: (p := describe(cluster, topic)) is not None and len(p.isr) == 3, timeout=90,
                       message=f"failover {failover}: broker {leader} back in the ISR")
            # The new leader proposed that expansion (AlterPartition); its metrics count it.
            assert cluster.nodes[after.leader].metric("kafka_server_replicamanager_isrexpands_total") >= 1
            # Its followers fetch through fetch sessions (KIP-227): the leader remembers each of them.
            assert cluster.nodes[after.leader].metric(
                "kafka_server_fetchsessioncache_numincrementalfetchsessions") >= 2
    finally:
        producer.stop()

    acknowledged = set(producer.acknowledged)
    consumed, high_watermark = read_all(cluster, topic)
    lost = sorted(acknowledged - consumed)
    assert not lost, f"{len(lost)} acknowledged records lost, the first: {lost[:10]}"
    assert len(acknowledged) >= 2000

    # Every replica holds the same committed batches: kafka-replica-verification asks each of them...
    def verified() -> str | None:
        result = run_tool("kafka.tools.replica_verification", "--bootstrap-server", cluster.bootstrap,
                          "--topics-include", topic, "--reports", "1")
        assert result.returncode == 0, result.stdout + result.stderr
        return f"max lag is 0 for partition {topic}-0" in result.stdout and result.stdout
    wait_until(verified, timeout=60, message="kafka-replica-verification: no lag", interval=0.5)

    # ...and the segment files say the same once the nodes have stopped.
    cluster.stop()
    digests = {node_id: committed_batches(node.data_dir / f"{topic}-0", topic, high_watermark)
               for node_id, node in cluster.nodes.items()}
    assert digests[1] == digests[2] == digests[3]
    assert digests[1][-1][1] == high_watermark - 1


def committed_batches(directory, topic: str, high_watermark: int) -> list[tuple[int, int, int]]:
    """(base offset, last offset, CRC) of each batch below the high watermark in one replica's log."""
    log = UnifiedLog(str(directory), topic, 0, LogConfig(), MockTime())
    try:
        records = log.read(log.log_start_offset, 1 << 30).records
        return [(b.base_offset, b.last_offset, b.crc) for b in iter_batches(bytes(records))
                if b.base_offset < high_watermark]
    finally:
        log.close()


def test_a_group_coordinator_fails_over_with_its_committed_offsets(cluster):
    """__consumer_offsets has replication factor 3 here: when the coordinator's broker is killed, the
    new leader of the group's partition becomes its coordinator with every committed offset, and
    with the KIP-848 consumer groups its records describe."""
    topic, group = unique_topic("offsets"), unique_topic("group")
    cluster.await_leader(cluster.nodes[1])
    with cluster.nodes[1].admin() as admin:
        wait_until(lambda: created(admin, NewTopic(topic, 1, 3)), timeout=60, message="CreateTopics",
                   interval=0.5)
    producer = confluent_kafka.Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all"})
    for i in range(100):
        producer.produce(topic, str(i).encode())
    assert producer.flush(60) == 0

    # A KIP-848 group in the same __consumer_offsets partition: two members, group epoch 2, its
    # records written before the commit below, so on the ISR once that commit is acknowledged.
    offsets_partition = kafka_abs(java_string_hash(group)) % 50
    modern = next(g for i in range(100_000) if kafka_abs(java_string_hash(g := f"{group}-kip848-{i}")) % 50
                  == offsets_partition)
    asked = WireClient(cluster.nodes[1].broker_port)

    def join(member: str):
        """As a client does: find the coordinator, and again while it is not ready to be one yet."""
        with_coordinator = WireClient(find_coordinator(asked, modern).port)  # creates __consumer_offsets
        joined = with_coordinator.request(ApiKey.CONSUMER_GROUP_HEARTBEAT, 1, dict(
            group_id=modern, member_id=member, member_epoch=0, rebalance_timeout_ms=30000,
            subscribed_topic_names=[topic], topic_partitions=[]))
        with_coordinator.close()
        assert joined.error_code in (Errors.NONE, Errors.NOT_COORDINATOR,
                                     Errors.COORDINATOR_LOAD_IN_PROGRESS), joined
        return joined.error_code == Errors.NONE
    for member in ("m1", "m2"):
        wait_until(lambda m=member: join(m), timeout=30, interval=0.2,
                   message=f"{member} in the consumer group")
    asked.close()

    consumer = group_consumer(cluster, group, topic)
    taken = [consume_one(consumer) for _ in range(60)]
    assert taken == list(range(60))
    consumer.commit(asynchronous=False)  # offset 60, in __consumer_offsets, committed on the ISR
    consumer.close()

    coordinator = wait_until(lambda: (p := describe_partition(cluster, "__consumer_offsets",
                                                              offsets_partition))
                             and len(p.isr) == 3 and p.leader, timeout=30,
                             message="the offsets partition's ISR")
    cluster.nodes[coordinator].kill()
    wait_until(lambda old=coordinator: (p := describe_partition(cluster, "__consumer_offsets",
                                                                offsets_partition,
                                                                exclude=old)) is not None
                                                                and p.leader not in (-1, old),
               timeout=60, message="a new coordinator")

    consumer = group_consumer(cluster, group, topic)
    assert consume_one(consumer) == 60, "the new coordinator hands out the committed offset"
    consumer.close()

    # and the consumer group, replayed from its records: same members, same epochs (no heartbeat since)
    new_coordinator = describe_partition(cluster, "__consumer_offsets", offsets_partition,
                                         exclude=coordinator).leader
    wire = WireClient(cluster.nodes[new_coordinator].broker_port)
    described = wait_until(lambda: (g := wire.request(ApiKey.CONSUMER_GROUP_DESCRIBE, 1, dict(
        group_ids=[modern], include_authorized_operations=False)).groups[0]).error_code == Errors.NONE and g,
        timeout=30, message="the consumer group on the new coordinator")
    assert (described.group_epoch, described.assignment_epoch,
            sorted(m.member_id for m in described.members)) == (
        2, 2, ["m1", "m2"])
    wire.close()


def group_consumer(cluster: KRaftCluster, group: str, topic: str) -> confluent_kafka.Consumer:
    consumer = confluent_kafka.Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": group,
                                         "auto.offset.reset": "earliest", "enable.auto.commit": False,
                                         "session.timeout.ms": 6000})
    consumer.subscribe([topic])
    return consumer


def consume_one(consumer: confluent_kafka.Consumer) -> int:
    message = wait_until(lambda: (m := consumer.poll(1)) is not None and not m.error() and m, timeout=60,
                         message="a record")
    return int(message.value())


def describe_partition(cluster: KRaftCluster, topic: str, partition: int, exclude: int | None = None):
    for node in cluster.nodes.values():
        if node.running and node.is_broker and node.node_id != exclude:
            with node.admin() as admin:
                found = topic_on(admin, topic)
            if found is not None and partition < len(found.partitions):
                return found.partitions[partition]
    return None


def test_kafka_leader_election_gives_leadership_back_to_the_preferred_replica(cluster):
    topic = unique_topic("preferred")
    cluster.await_leader(cluster.nodes[1])
    with cluster.nodes[1].admin() as admin:
        wait_until(lambda: created(admin, NewTopic(topic, 1, 3)), timeout=60, message="CreateTopics",
                   interval=0.5)
    preferred = wait_until(lambda: (p := describe(cluster, topic)) is not None and len(p.isr) == 3
                           and p.replicas[0],
                           timeout=30, message="a full ISR")
    cluster.nodes[preferred].stop()  # SIGTERM: a controlled shutdown moves its leadership away
    wait_until(lambda: (p := describe(cluster, topic)) is not None and p.leader not in (-1, preferred),
               timeout=60,
               message="another leader")
    cluster.nodes[preferred].start()
    wait_until(lambda: (p := describe(cluster, topic)) is not None and len(p.isr) == 3, timeout=90,
               message=f"broker {preferred} back in the ISR")

    def elect() -> str:
        result = run_tool("kafka.tools.leader_election_command", "--bootstrap-server", cluster.bootstrap,
                          "--election-type", "preferred", "--topic", topic, "--partition", "0")
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout

    assert elect() == f"Successfully completed leader election (PREFERRED) for partitions {topic}-0\n"
    wait_until(lambda: describe(cluster, topic).leader == preferred, timeout=30,
               message="the preferred leader")
    assert elect() == f"Valid replica already elected for partitions {topic}-0\n"


def test_kafka_reassign_partitions_moves_a_partition_to_other_brokers(cluster, tmp_path):
    topic = unique_topic("moving")
    cluster.await_leader(cluster.nodes[1])
    with cluster.nodes[1].admin() as admin:
        wait_until(lambda: created(admin, NewTopic(topic, 1, 1)), timeout=60, message="CreateTopics",
                   interval=0.5)
    source = wait_until(lambda: (p := describe(cluster, topic)) is not None and p.leader >= 0 and p.leader,
                        timeout=30, message="a leader")
    producer = confluent_kafka.Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all"})
    for i in range(300):
        producer.produce(topic, str(i).encode())
    assert producer.flush(60) == 0

    targets = sorted(n for n in cluster.nodes if n != source)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1,
                                "partitions": [{"topic": topic, "partition": 0, "replicas": targets}]}))
    reassign = ("kafka.tools.reassign_partitions_command", "--bootstrap-server", cluster.bootstrap)
    result = run_tool(*reassign, "--execute", "--reassignment-json-file", str(plan))
    assert result.returncode == 0, result.stderr
    assert f"Successfully started partition reassignments for {topic}-0" in result.stdout

    # The new replicas fetch from the leader, join the ISR, and the controller completes the move.
    wait_until(lambda: f"Reassignment of partition {topic}-0 is completed." in run_tool(
        *reassign, "--verify", "--reassignment-json-file", str(plan)).stdout, timeout=60, message="the move")
    wait_until(lambda: (p := describe(cluster, topic)) is not None and (list(p.replicas), p.leader) ==
               (targets, targets[0]), timeout=30, message="the new replicas in the metadata")
    assert read_all(cluster, topic)[0] == set(range(300))
    wait_until(lambda: not (cluster.nodes[source].data_dir / f"{topic}-0").exists(), timeout=30,
               message=f"broker {source} deleting its old replica")
    assert run_tool(*reassign, "--list").stdout == "No partition reassignments found.\n"


def test_acks_all_with_too_few_in_sync_replicas_is_refused_and_writes_nothing(cluster):
    topic = unique_topic("guarded")
    cluster.await_leader(cluster.nodes[1])
    with cluster.nodes[1].admin() as admin:
        wait_until(lambda: created(admin, NewTopic(topic, 1, 2, {"min.insync.replicas": "2"})), timeout=60,
                   message="CreateTopics", interval=0.5)
    partition = wait_until(lambda: (p := describe(cluster, topic)) is not None and len(p.isr) == 2 and p,
                           timeout=30, message="a full ISR")
    follower = next(r for r in partition.replicas if r != partition.leader)
    cluster.nodes[follower].kill()
    wait_until(lambda: (p := describe(cluster, topic, exclude=follower)) is not None
               and list(p.isr) == [p.leader],
               timeout=60, message="the ISR down to the leader")

    leader = cluster.nodes[partition.leader]
    client = WireClient(leader.broker_port)
    try:
        def produce(acks: int):
            response = client.request(ApiKey.PRODUCE, 9, {"acks": acks, "timeout_ms": 5000, "topic_data": [
                {"name": topic, "partition_data": [{"index": 0, "records": build_batch([(b"k", b"v")])}]}]})
            return response.responses[0].partition_responses[0]
        refused = produce(-1)
        assert refused.error_code == Errors.NOT_ENOUGH_REPLICAS
        written = produce(1)  # acks=1 does not ask for the ISR: it is written, at offset 0
        assert (written.error_code, written.base_offset) == (Errors.NONE,
                                                             0), "the refused batch took no offset"
    finally:
        client.close()
