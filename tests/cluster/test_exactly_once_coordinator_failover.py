"""Exactly-once across a group coordinator's failover (issue 38): a transactional read-process-write
loop copies an input topic to an output topic on three real nodes while the leader of its group's
__consumer_offsets partition -- the node whose coordinator runtime shard owns the group -- is killed
with SIGKILL and later restarted.

__consumer_offsets and __transaction_state have three replicas and min ISR 2, so the committed group
records survive on the followers and a new leader's shard loads the group from them: the consumer
finds the new coordinator, its transactions' TxnOffsetCommits go there, and an aborted transaction's
pending offsets must never become the group's. The loop is the one an application writes (KIP-447):
read_committed, enable.auto.commit=false, send_offsets_to_transaction with the consumer's group
metadata, and on any error abort and rewind to the group's committed offsets -- a rewind that must
succeed before the next transaction begins (tests/nemesis/transactional_job.py says why).

Afterwards a read_committed reader must find every input value in the output exactly once, and the
group's committed offsets must be the input topic's end offsets. Once with group.protocol=consumer
(KIP-848, ConsumerGroupHeartbeat) and once with classic (JoinGroup/SyncGroup); the Java client's
run of the same copy is tests/jvm/test_java_exactly_once_coordinator_failover.py.

The copy is 100,000 records (about 40 s a case on a 2-core machine; EOS_FAILOVER_RECORDS=20000
makes it shorter). The kill comes once a third of the input is committed; the restart once another
node leads the partition and coordinates the group; the copier waits at two thirds until the
restarted node is back in that partition's ISR, so the last third runs with it in the cluster.

librdkafka 2.16's send_offsets_to_transaction can block for ever, past its timeout, when the group
coordinator it cached was a broker it has since decommissioned (a fenced broker leaves the metadata):
confluentinc/librdkafka#5511 and #5456, a client bug that Apache Kafka's brokers trigger the same way.
The copier does what an application must: a watchdog gives up on the stuck producer and starts a new
one with the same transactional.id, which aborts the open transaction and fences the old producer.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from confluent_kafka import (
    OFFSET_BEGINNING,
    Consumer,
    ConsumerGroupTopicPartitions,
    KafkaError,
    KafkaException,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient, NewTopic

from kafka.utils.java_hash import java_string_hash, kafka_abs
from tests.cluster.kraft_cluster import KRaftCluster, started_cluster
from tests.helpers import unique_topic, wait_until

pytestmark = pytest.mark.timeout(600)

RECORDS = int(os.environ.get("EOS_FAILOVER_RECORDS", "100000"))
PARTITIONS = 3
OFFSETS_PARTITIONS = 50  # offsets.topic.num.partitions, Kafka's default
# Kafka's defaults take 9 s to fence a dead broker and 30 s to drop a follower from the ISR.
CLUSTER = {"broker.session.timeout.ms": "4000", "broker.heartbeat.interval.ms": "500",
           "replica.lag.time.max.ms": "3000",
           "offsets.topic.replication.factor": "3", "offsets.topic.num.partitions": str(OFFSETS_PARTITIONS),
           "transaction.state.log.replication.factor": "3", "transaction.state.log.min.isr": "2",
           "transaction.state.log.num.partitions": "6", "min.insync.replicas": "2",
           "group.consumer.heartbeat.interval.ms": "1000",
           "group.consumer.min.heartbeat.interval.ms": "1000"}
CLIENT_TIMEOUTS = {"socket.timeout.ms": 10000, "reconnect.backoff.max.ms": 1000,
                   "topic.metadata.refresh.interval.ms": 2000,
                   **({"debug": os.environ["EOS_FAILOVER_DEBUG"]} if os.environ.get("EOS_FAILOVER_DEBUG")
                      else {})}


def offsets_partition(group: str) -> int:
    """The __consumer_offsets partition whose leader coordinates the group (GroupCoordinator.partitionFor)."""
    return kafka_abs(java_string_hash(group)) % OFFSETS_PARTITIONS


def partition_leader(admin: AdminClient, topic: str, partition: int) -> int | None:
    """The partition's leader in the metadata a node answers, None while it has none (or no node answers)."""
    try:
        found = admin.list_topics(topic, timeout=5).topics.get(topic)
    except KafkaException:
        return None
    if found is None or found.error is not None or partition not in found.partitions:
        return None
    leader = found.partitions[partition].leader
    return leader if leader >= 0 else None


def partition_isr(admin: AdminClient, topic: str, partition: int) -> list[int]:
    try:
        found = admin.list_topics(topic, timeout=5).topics.get(topic)
        return list(found.partitions[partition].isrs) if found is not None and found.error is None else []
    except (KafkaException, KeyError):
        return []


def prepare_topics(cluster: KRaftCluster, source: str, sink: str) -> AdminClient:
    """Both topics with three replicas, once all three brokers are registered."""
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})

    def three_brokers() -> bool:
        try:
            return len(admin.list_topics(timeout=5).brokers) == 3
        except KafkaException:
            return False
    wait_until(three_brokers, 90, "three brokers", interval=0.2)
    for future in admin.create_topics([NewTopic(t, PARTITIONS, 3) for t in (source, sink)]).values():
        future.result(30)
    for topic in (source, sink):
        wait_until(lambda topic=topic: all(partition_leader(admin, topic, p) for p in range(PARTITIONS)), 30,
                   f"leaders for {topic}", interval=0.2)
    return admin


def fill(bootstrap: str, topic: str) -> dict[int, int]:
    """RECORDS numbered records, record n in partition n % 3; the input's end offsets."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "enable.idempotence": True,
                         "batch.num.messages": 2000})
    for n in range(RECORDS):
        while True:
            try:
                producer.produce(topic, key=b"%d" % n, value=b"%d" % n, partition=n % PARTITIONS)
                break
            except BufferError:
                producer.poll(0.1)
    assert producer.flush(60) == 0, "every input record acknowledged"
    return {p: len(range(p, RECORDS, PARTITIONS)) for p in range(PARTITIONS)}


STUCK = KafkaError._TIMED_OUT_QUEUE  # the code this test gives a call that overran its timeout


def within_deadline(call: Callable[[], None], timeout: float, grace: float = 15.0) -> None:
    """call(), which librdkafka should end within timeout; a KafkaException with STUCK if it has not
    returned `grace` seconds after that. librdkafka 2.16's send_offsets_to_transaction can block for
    ever when the group coordinator it cached is a broker it has decommissioned (dropped from the
    metadata, as a fenced broker is): confluentinc/librdkafka#5511, with #5456 (its timeout is never
    checked). An application's watchdog gives up on such a producer and starts a new one with the same
    transactional.id, whose InitProducerId aborts the open transaction and fences the stuck one."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
            outcome.append(e)
    worker = threading.Thread(target=run, daemon=True, name="transactional-call")
    worker.start()
    worker.join(timeout + grace)
    if not outcome:
        raise KafkaException(KafkaError(STUCK,
                                        f"no answer {timeout + grace:.0f} s into a {timeout:.0f} s call"))
    if outcome[0] is not None:
        raise outcome[0]


@dataclass
class CopyProgress:
    """What the copier has done, as the test thread sees it."""
    copied: int = 0  # input records whose transaction committed
    committed: int = 0
    aborted: int = 0
    errors: list[str] = field(default_factory=list)
    abandoned: list[Producer] = field(default_factory=list)  # producers stuck in a call past its timeout
    done: threading.Event = field(default_factory=threading.Event)
    failure: BaseException | None = None


class Copier(threading.Thread):
    """The read-process-write loop with confluent-kafka, until the group has committed the input's end.

    Waits before it copies past `pause_at` records until `resume` is set (the test restarts the
    killed node meanwhile)."""

    def __init__(self, bootstrap: str, protocol: str, group: str, source: str, sink: str,
                 ends: dict[int, int],
                 pause_at: int, resume: threading.Event, stop: threading.Event) -> None:
        super().__init__(daemon=True, name=f"copier-{protocol}")
        self.bootstrap, self.protocol, self.group = bootstrap, protocol, group
        self.source, self.sink, self.ends = source, sink, ends
        self.pause_at, self.resume, self.stopping = pause_at, resume, stop
        self.transactional_id = unique_topic("copier")
        self.progress = CopyProgress()
        self.positions: dict[int, int] = {}  # what the last committed transaction committed

    def _producer(self) -> Producer:
        producer = Producer({"bootstrap.servers": self.bootstrap, "transactional.id": self.transactional_id,
                             "transaction.timeout.ms": 60000, "linger.ms": 5, **CLIENT_TIMEOUTS})
        producer.init_transactions(60)
        return producer

    def _consumer(self) -> Consumer:
        config = {"bootstrap.servers": self.bootstrap, "group.id": self.group,
                  "group.protocol": self.protocol,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False,
                  "isolation.level": "read_committed", **CLIENT_TIMEOUTS}
        if self.protocol == "classic":
            config["session.timeout.ms"] = 10000
        return Consumer(config)

    def run(self) -> None:
        consumer = self._consumer()
        consumer.subscribe([self.source])
        producer, rewind = None, False
        try:
            while not self.stopping.is_set() and not self._finished():
                if self.progress.copied >= self.pause_at and not self.resume.is_set():
                    consumer.consume(100, 0.2)  # still polling (a classic member's max.poll.interval.ms)
                    rewind = True  # and so positions past the committed offsets: back to those first
                    continue
                try:
                    # A replacement producer first: its InitProducerId ends the old transaction, whose
                    # pending offsets would hold a require_stable OffsetFetch at UNSTABLE_OFFSET_COMMIT.
                    producer = producer or self._producer()
                    if rewind:
                        if not self._rewind(consumer):
                            continue  # never a transaction from positions past aborted inputs
                        rewind = False
                    self._one_transaction(consumer, producer)
                except KafkaException as exception:
                    producer = self._recover(producer, exception.args[0])
                    rewind = True
            self.progress.done.set()
        except BaseException as e:  # noqa: BLE001 - the test thread reports it
            self.progress.failure = e
        finally:
            consumer.close()

    def _finished(self) -> bool:
        return all(self.positions.get(p, 0) >= end for p, end in self.ends.items())

    def _one_transaction(self, consumer: Consumer, producer: Producer) -> None:
        messages = []
        for m in consumer.consume(1000, 0.5):
            if m.error() is None:
                messages.append(m)
            elif m.error().fatal():
                raise KafkaException(m.error())
            else:
                self.progress.errors.append(f"consume: {m.error()}")
        if not messages:
            return
        producer.begin_transaction()
        for m in messages:
            producer.produce(self.sink, key=m.key(), value=m.value(), partition=m.partition())
        positions = consumer.position(consumer.assignment())
        within_deadline(lambda: producer.send_offsets_to_transaction(positions,
                                                                     consumer.consumer_group_metadata(), 30),
                        30)
        within_deadline(lambda: producer.commit_transaction(60), 60)
        self.progress.committed += 1
        self.progress.copied += len(messages)
        self.positions.update({tp.partition: tp.offset for tp in positions if tp.offset >= 0})

    def _recover(self, producer: Producer | None, error: KafkaError) -> Producer | None:
        """Abort what can be aborted; None if a new producer must fence this one. The caller rewinds."""
        self.progress.errors.append(str(error))
        if error.code() == STUCK:
            self.progress.abandoned.append(producer)  # never destroyed under the call still blocked in it
            return None
        if producer is None or error.fatal():
            return None  # a new one with the same transactional.id fences this one
        try:
            producer.abort_transaction(60)
            self.progress.aborted += 1
            return producer
        except KafkaException as e:  # nothing to abort, or it cannot: start over
            self.progress.errors.append(f"abort: {e}")
            return None

    def _rewind(self, consumer: Consumer) -> bool:
        """Every assigned partition back to the group's committed offset (its start if none); False,
        the error noted, if an offset is unknown: then no transaction may begin."""
        try:
            committed = consumer.committed(consumer.assignment(), 30)
            unknown = [tp for tp in committed if tp.error is not None]
            if unknown:
                raise KafkaException(unknown[0].error)
            for tp in committed:
                consumer.seek(tp if tp.offset >= 0
                              else TopicPartition(tp.topic, tp.partition, OFFSET_BEGINNING))
                if tp.offset >= 0:
                    self.positions[tp.partition] = max(self.positions.get(tp.partition, 0), tp.offset)
            return True
        except KafkaException as exception:
            self.progress.errors.append(f"rewind: {exception}")
            self.stopping.wait(0.5)
            return False


def coordinator_of(admin: AdminClient, group: str) -> int | None:
    """The node a DescribeGroups answers for the group from, once its shard there has loaded it."""
    try:
        described = admin.describe_consumer_groups([group], request_timeout=5)[group].result(10)
    except KafkaException:
        return None
    return described.coordinator.id if described.coordinator is not None else None


def kill_and_restart_the_coordinator(cluster: KRaftCluster, admin: AdminClient, group: str,
                                     copied: Callable[[], int]) -> dict:
    """Once a third of the input is copied: SIGKILL the leader of the group's __consumer_offsets
    partition; wait until another node leads it and coordinates the group; start the killed node
    again and wait until it is back in that partition's ISR. What happened, for the test's report."""
    partition = offsets_partition(group)
    wait_until(lambda: copied() >= RECORDS // 3, 300, "a third of the input copied", interval=0.05)
    victim = wait_until(lambda: partition_leader(admin, "__consumer_offsets", partition), 30,
                        f"the leader of __consumer_offsets-{partition}")
    at_kill = copied()
    cluster.nodes[victim].kill()
    killed_at = time.monotonic()
    new_leader = wait_until(lambda: (leader := partition_leader(admin, "__consumer_offsets",
                                                                partition)) != victim
                            and leader, 60, f"a new leader of __consumer_offsets-{partition}", interval=0.2)
    wait_until(lambda: coordinator_of(admin, group) == new_leader, 60,
               f"node {new_leader} coordinating the group",
               interval=0.2)
    failover_s = time.monotonic() - killed_at
    at_restart = copied()
    cluster.nodes[victim].start()
    wait_until(lambda: victim in partition_isr(admin, "__consumer_offsets", partition), 120,
               f"node {victim} back in the ISR of __consumer_offsets-{partition}", interval=0.5)
    return {"victim": victim, "new_leader": new_leader, "copied_at_kill": at_kill,
            "copied_at_restart": at_restart,
            "failover_s": round(failover_s, 1), "back_in_isr_s": round(time.monotonic() - killed_at, 1)}


def read_committed(bootstrap: str, topic: str, ends: dict[int, int] | None = None) -> Counter[bytes]:
    """Every value a read_committed consumer is given, from each partition's start to its end
    (librdkafka's partition EOF is at the last stable offset: the loop has ended, nothing is open)."""
    reader = Consumer({"bootstrap.servers": bootstrap, "group.id": unique_topic("reader"),
                       "enable.auto.commit": False,
                       "isolation.level": "read_committed", "enable.partition.eof": True})
    reader.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(PARTITIONS)])
    values: Counter[bytes] = Counter()
    at_end: set[int] = set()

    def all_read() -> bool:
        for m in reader.consume(num_messages=5000, timeout=0.2):
            if m.error() is None:
                values[m.value()] += 1
            elif m.error().code() == KafkaError._PARTITION_EOF:
                at_end.add(m.partition())
            else:
                raise KafkaException(m.error())
        return len(at_end) == PARTITIONS

    try:
        wait_until(all_read, 120, f"{topic} read to its end", interval=0)
    finally:
        reader.close()
    return values


def group_offsets(admin: AdminClient, group: str, topic: str) -> dict[int, int]:
    """The group's committed offsets of the topic (OffsetFetch with require_stable: no transaction
    pending)."""
    request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p) for p in range(PARTITIONS)])
    answer = admin.list_consumer_group_offsets([request], require_stable=True)[group].result(30)
    return {tp.partition: tp.offset for tp in answer.topic_partitions}


def assert_exactly_once(admin: AdminClient, bootstrap: str, group: str, source: str, sink: str,
                        ends: dict[int, int], context: str) -> None:
    output = read_committed(bootstrap, sink)
    expected = Counter(b"%d" % n for n in range(RECORDS))
    missing = sorted(int(v) for v in expected - output)
    twice = sorted(int(v) for v, n in output.items() if n > 1)
    extra = sorted(v for v in output if v not in expected)
    assert (missing, twice, extra) == ([], [], []), (
        f"{len(missing)} inputs missing from the output (e.g. {missing[:5]}), {len(twice)} in it more than "
        f"once (e.g. {twice[:5]}), {len(extra)} unexplained; {context}")
    assert sum(output.values()) == RECORDS
    assert group_offsets(admin, group, source) == ends, f"the group's offsets: the input's end; {context}"


@pytest.mark.parametrize("protocol", ["consumer", "classic"])
def test_a_transactional_copy_is_exactly_once_across_a_group_coordinator_kill(protocol, tmp_path, request):
    started = time.monotonic()
    with started_cluster(tmp_path, request, extra=CLUSTER) as cluster:
        source, sink, group = unique_topic("eos-in"), unique_topic("eos-out"), unique_topic(f"eos-{protocol}")
        admin = prepare_topics(cluster, source, sink)
        bootstrap = cluster.bootstrap
        ends = fill(bootstrap, source)
        filled = time.monotonic()

        resume, stop = threading.Event(), threading.Event()
        copier = Copier(bootstrap, protocol, group, source, sink, ends, 2 * RECORDS // 3, resume, stop)
        copier.start()
        progress = copier.progress
        try:
            def copied() -> int:
                assert progress.failure is None, f"the copier failed: {progress.failure!r}"
                return progress.copied
            failover = kill_and_restart_the_coordinator(cluster, admin, group, copied)
            resume.set()
            wait_until(lambda: progress.done.is_set() or progress.failure is not None, 120,
                       "the copy to the input's end", interval=0.1)
        except AssertionError as e:
            raise AssertionError(f"{e}; {protocol}: {progress.copied} copied, {progress.committed} "
                                 f"transactions committed, {progress.aborted} aborted, errors "
                                 f"{Counter(progress.errors).most_common(8)}") from None
        finally:
            stop.set()
            resume.set()
            copier.join(60)
        context = (f"{protocol}: {failover}, {progress.committed} transactions committed, {progress.aborted} "
                   f"aborted, {len(progress.abandoned)} producers abandoned stuck, errors "
                   f"{Counter(progress.errors).most_common(8)}")
        print(context, f"fill {filled - started:.1f} s, copy {time.monotonic() - filled:.1f} s")
        assert progress.failure is None, f"the copier failed: {progress.failure!r}; {context}"
        assert_exactly_once(admin, bootstrap, group, source, sink, ends, context)
