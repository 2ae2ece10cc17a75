"""The transactional read-process-write job of a nemesis run, and its exactly-once check.

Kafka Streams' exactly-once in miniature (KIP-98, KIP-447): a read_committed consumer in group
`nemesis-txn` reads the input topic; for each batch a transactional producer writes `t:<value>` to
the output topic and commits the consumer's positions in the same transaction
(send_offsets_to_transaction). When a transaction fails it is aborted and the consumer goes back to
the group's committed offsets; a fenced or fatal producer is replaced by one with the same
transactional.id, which fences the old one. Whatever the faults, the committed output must hold
each input record below the group's committed offsets exactly once, and nothing else.

No transaction begins until that rewind has succeeded. The consumer's in-memory positions are past
the aborted inputs; a job that goes on from them after a failed rewind commits the next transaction's
offsets beyond inputs whose output was aborted, and loses them. Seed 12 did: the TxnOffsetCommit went
to a paused group coordinator (node 1, then fenced; librdkafka failed it with _DESTROY_BROKER), the
transaction was aborted with no offset of it in __consumer_offsets, the rewind failed (the run
counted four errors for three aborts and kept no text; librdkafka's committed() retries only
_WAIT_COORD and _TRANSPORT), and 0.6 s after the ABORT the next transaction began where the aborted
batch ended and committed its offsets past it. The run now logs the job's errors.

The output is read from a replica's segment files: records of a transaction count only if its
COMMIT marker follows (read_committed, done on the log as a consumer's fetcher does it).
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field

import confluent_kafka

from kafka.protocol.control_records import COMMIT, read_end_txn_marker
from kafka.protocol.record_batch import RecordBatch
from tests.nemesis.cluster import CLIENT_TIMEOUTS

GROUP = "nemesis-txn"


@dataclass
class TransactionHistory:
    committed: int = 0
    aborted: int = 0
    errors: list[str] = field(default_factory=list)


class TransactionalJob(threading.Thread):
    def __init__(self, bootstrap: str, source: str, sink: str, history: TransactionHistory,
                 stop: threading.Event) -> None:
        super().__init__(daemon=True, name="transactional-job")
        self.bootstrap, self.source, self.sink = bootstrap, source, sink
        self.history, self.stopping = history, stop

    def _producer(self) -> confluent_kafka.Producer:
        producer = confluent_kafka.Producer({"bootstrap.servers": self.bootstrap,
                                             "transactional.id": "nemesis-job",
                                             "transaction.timeout.ms": 60000, **CLIENT_TIMEOUTS})
        producer.init_transactions(60)
        return producer

    def _consumer(self) -> confluent_kafka.Consumer:
        return confluent_kafka.Consumer({
            "bootstrap.servers": self.bootstrap, "group.id": GROUP, "auto.offset.reset": "earliest",
            "enable.auto.commit": False, "isolation.level": "read_committed", "session.timeout.ms": 10000,
            **CLIENT_TIMEOUTS})

    def run(self) -> None:
        consumer = self._consumer()
        consumer.subscribe([self.source])
        producer, abandoned, rewind = None, False, False
        try:
            while not self.stopping.is_set():
                try:
                    # A replacement producer first: its InitProducerId ends the old transaction, whose
                    # pending offsets would hold a require_stable OffsetFetch at UNSTABLE_OFFSET_COMMIT.
                    producer = producer or self._producer()
                    if rewind:
                        if not self._rewind(consumer):
                            continue  # not one transaction from positions past aborted inputs
                        rewind = False
                    self._one_transaction(consumer, producer)
                except confluent_kafka.KafkaException as exception:
                    producer = self._recover(producer, exception.args[0])
                    abandoned, rewind = producer is None, True
        finally:
            if abandoned:
                self._fence_abandoned_transaction()
            consumer.close()

    def _fence_abandoned_transaction(self) -> None:
        """A producer dropped mid-transaction leaves it open, and its offsets pending (a require_stable
        OffsetFetch answers UNSTABLE_OFFSET_COMMIT), until transaction.timeout.ms runs out. A new
        producer's InitProducerId with the same transactional.id aborts it now, as a restarted job would."""
        try:
            self._producer().flush(10)
        except confluent_kafka.KafkaException as exception:
            self.history.errors.append(f"fence on stop: {exception}")

    def _one_transaction(self, consumer, producer) -> None:
        messages = [m for m in consumer.consume(200, 0.5) if not m.error()]
        if not messages:
            return
        producer.begin_transaction()
        for m in messages:
            producer.produce(self.sink, b"t:" + m.value(), partition=m.partition())
        producer.send_offsets_to_transaction(consumer.position(consumer.assignment()),
                                             consumer.consumer_group_metadata(), 30)
        producer.commit_transaction(60)
        self.history.committed += 1

    def _recover(self, producer, error):
        """Abort what can be aborted; None if a new producer must fence this one. The caller rewinds."""
        self.history.errors.append(str(error))
        if producer is not None and not error.fatal():
            try:
                producer.abort_transaction(60)
                self.history.aborted += 1
            except confluent_kafka.KafkaException:  # nothing to abort, or it cannot: start over
                producer = None
        else:
            producer = None  # a new one with the same transactional.id fences this one
        return producer

    def _rewind(self, consumer) -> bool:
        """Seek every assigned partition back to the group's committed offset; False, with the error
        recorded, if that could not be done, and then the caller must try again before it goes on.
        A partition the OffsetFetch answered with an error (UNSTABLE_OFFSET_COMMIT once librdkafka's
        retries ran out, NOT_COORDINATOR) has no known committed offset: neither its in-memory
        position nor the log's beginning will do. A partition with none committed starts at the
        beginning (auto.offset.reset=earliest); one no longer assigned restarts from the committed
        offset when it comes back."""
        try:
            committed = consumer.committed(consumer.assignment(), 30)
            unknown = [tp for tp in committed if tp.error is not None]
            if unknown:
                raise confluent_kafka.KafkaException(unknown[0].error)
            for tp in committed:
                consumer.seek(tp if tp.offset >= 0 else confluent_kafka.TopicPartition(tp.topic, tp.partition,
                                                                                      confluent_kafka.OFFSET_BEGINNING))
            return True
        except confluent_kafka.KafkaException as exception:
            self.history.errors.append(f"rewind: {exception}")
            self.stopping.wait(0.5)
            return False


def committed_values(batches: list[RecordBatch]) -> list[str]:
    """The values of a log that a read_committed consumer would be given, in offset order."""
    pending: dict[int, list[str]] = {}
    values: list[str] = []
    for batch in batches:
        if batch.is_control_batch:
            marker, _ = read_end_txn_marker(batch)
            done = pending.pop(batch.producer_id, [])
            if marker == COMMIT:
                values.extend(done)
        elif batch.is_transactional:
            pending.setdefault(batch.producer_id, []).extend(r.value.decode() for r in batch)
        else:
            values.extend(r.value.decode() for r in batch)
    return values


def exactly_once_anomalies(inputs: dict[int, dict[int, str]], outputs: dict[int, list[str]],
                           committed: dict[int, int]) -> list[str]:
    """What breaks exactly-once: an input below the committed offset missing from the output or in it
    twice, or an output with no input below the committed offset behind it."""
    anomalies = []
    for partition, by_offset in inputs.items():
        expected = Counter(f"t:{v}" for o, v in by_offset.items() if o < committed.get(partition, 0))
        found = Counter(outputs.get(partition, []))
        missing = sorted(set(expected) - set(found))
        twice = sorted(v for v, n in found.items() if n > 1)
        extra = sorted(set(found) - set(expected))
        for label, values in (("missing from", missing), ("twice in", twice), ("unexplained in", extra)):
            if values:
                anomalies.append(f"transactional job: {len(values)} values {label} output partition "
                                 f"{partition}, e.g. {values[:3]}")
    return anomalies
