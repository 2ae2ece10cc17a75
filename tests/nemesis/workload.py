"""The workloads that run while the nemesis strikes, and the history each one records for the checker.

Real clients (confluent-kafka, librdkafka) against the three nodes' addresses:
- idempotent producers (acks=all, enable.idempotence) writing unique values `p<n>-<seq>`, each
  remembering which values the cluster acknowledged and at which partition and offset;
- a consumer in a group that commits the offsets it has consumed, each commit recorded;
- a read_committed reader that remembers every value it was ever shown;
- a transactional read-process-write job (tests/nemesis/transactional_job.py).
A client error is part of the history, not a failure of the run: a producer whose idempotent state
became fatal is replaced by a new one (a new producer id), as an application would.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import confluent_kafka

from tests.nemesis.cluster import CLIENT_TIMEOUTS
from tests.nemesis.transactional_job import TransactionalJob, TransactionHistory

GROUP_ID = "nemesis-group"  # the committing members' group (tests/nemesis/java_clients.py adds a Java one)


@dataclass
class ProducerHistory:
    sent: dict[str, list[str]] = field(default_factory=dict)          # producer -> values in send order
    acknowledged: dict[str, tuple[int, int]] = field(default_factory=dict)  # value -> (partition, offset)
    failed: dict[str, str] = field(default_factory=dict)               # value -> error (indeterminate)
    fatal: list[str] = field(default_factory=list)


class IdempotentProducer(threading.Thread):
    """Sends `<name>-0`, `<name>-1`, ... with acks=all and idempotence, a few hundred a second."""

    def __init__(self, name: str, bootstrap: str, topic: str, history: ProducerHistory,
                 stop: threading.Event):
        super().__init__(daemon=True, name=f"producer-{name}")
        self.base_name, self.bootstrap, self.topic = name, bootstrap, topic
        self.history, self.stopping = history, stop
        self.lock = threading.Lock()
        self.fatal = threading.Event()

    def _new_producer(self, generation: int) -> tuple[str, confluent_kafka.Producer]:
        name = f"{self.base_name}g{generation}"
        self.history.sent[name] = []
        producer = confluent_kafka.Producer({
            "bootstrap.servers": self.bootstrap, "acks": "all", "enable.idempotence": True,
            "linger.ms": 5, "message.timeout.ms": 300000, "retry.backoff.ms": 200, **CLIENT_TIMEOUTS,
            "error_cb": lambda error: self._on_error(name, error)})
        return name, producer

    def _on_error(self, name: str, error) -> None:
        if error.fatal():
            with self.lock:
                self.history.fatal.append(f"{name}: {error}")
            self.fatal.set()

    def _delivered(self, error, message) -> None:
        value = message.value().decode()
        with self.lock:
            if error is None:
                self.history.acknowledged[value] = (message.partition(), message.offset())
            else:
                self.history.failed[value] = str(error)

    def run(self) -> None:
        generation, seq = 0, 0
        name, producer = self._new_producer(generation)
        while not self.stopping.is_set():
            if self.fatal.is_set():
                self.fatal.clear()
                producer.flush(10)
                generation += 1
                name, producer = self._new_producer(generation)
                seq = 0
            for _ in range(5):
                value = f"{name}-{seq}"
                try:
                    producer.produce(self.topic, value.encode(), on_delivery=self._delivered)
                except BufferError:
                    break
                except confluent_kafka.KafkaException:  # fatal: replaced above on the next round
                    break
                self.history.sent[name].append(value)
                seq += 1
            producer.poll(0.02)
        producer.flush(120)


@dataclass
class ConsumerHistory:
    commits: list[tuple[int, int]] = field(default_factory=list)   # (partition, committed offset)
    read: list[tuple[int, int, str]] = field(default_factory=list)  # (partition, offset, value)
    errors: list[str] = field(default_factory=list)


class CommittingConsumer(threading.Thread):
    """A member of a consumer group that commits what it consumed, synchronously, about once a second;
    with `read_committed` only, a plain reader that remembers everything it was shown."""

    def __init__(self, bootstrap: str, topic: str, group: str, history: ConsumerHistory,
                 stop: threading.Event,
                 commit: bool = True) -> None:
        super().__init__(daemon=True, name=f"consumer-{group}")
        self.topic, self.history, self.stopping, self.commit = topic, history, stop, commit
        self.consumer = confluent_kafka.Consumer({
            "bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
            "enable.auto.commit": False, "isolation.level": "read_committed", "session.timeout.ms": 10000,
            **CLIENT_TIMEOUTS})

    def run(self) -> None:
        self.consumer.subscribe([self.topic])
        consumed = 0
        try:
            while not self.stopping.is_set():
                for message in self.consumer.consume(200, 0.5):
                    if message.error():
                        self.history.errors.append(str(message.error()))
                        continue
                    self.history.read.append((message.partition(), message.offset(),
                                              message.value().decode()))
                    consumed += 1
                if self.commit and consumed:
                    self._commit()
                    consumed = 0
        finally:
            self.consumer.close()

    def _commit(self) -> None:
        try:
            for tp in self.consumer.commit(asynchronous=False) or []:
                if tp.error is None and tp.offset >= 0:
                    self.history.commits.append((tp.partition, tp.offset))
        except confluent_kafka.KafkaException as error:
            self.history.errors.append(str(error))


class Workload:
    """Every client of a run, started and stopped together."""

    def __init__(self, bootstrap: str, topic: str, sink: str, producers: int = 2) -> None:
        self.stop_event = threading.Event()
        self.produced = ProducerHistory()
        self.group = ConsumerHistory()
        self.reader = ConsumerHistory()
        self.transactions = TransactionHistory()
        self.threads: list[threading.Thread] = [
            TransactionalJob(bootstrap, topic, sink, self.transactions, self.stop_event),
            *(IdempotentProducer(f"p{i}", bootstrap, topic, self.produced, self.stop_event)
              for i in range(producers)),
            CommittingConsumer(bootstrap, topic, GROUP_ID, self.group, self.stop_event),
            CommittingConsumer(bootstrap, topic, "nemesis-reader", self.reader, self.stop_event,
                               commit=False)]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def stop(self, timeout: float = 180) -> list[str]:
        """Stop every client; the names of those still running after `timeout` seconds (stuck)."""
        self.stop_event.set()
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return [t.name for t in self.threads if t.is_alive()]
