"""The demo's steps, in order, on any three-node cluster: ``brokers`` kills and restarts a node (a node of
`make cluster` here, a test's node process in tests/jvm/test_streams_demo.py).

    1. topics: sentences, orders, payments in; word-counts, paid-orders out (three replicas each)
    2. two instances of WordCount and two of OrderPayments; they share the partitions (tasks) between them
    3. phase 1 of the input, processed by all four
    4. half of phase 2; kill -9 one instance of each application while it processes it (a transaction
       open); the other half. The survivors take over once the group coordinator has given up on the dead
       (session.timeout.ms) and the dead one's transaction has been aborted (transaction.timeout.ms)
    5. start the killed instances again: they restore their stores from the changelog topics
    6. kill -9 the broker that coordinates WordCount's group; phase 3 while it is down; start it again
    7. wait until both groups have committed every record of their input and repartition topics, then read
       the outputs with read_committed and compare them with what the input implies

Every wait has a deadline; ``say`` gets a line for each step.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from examples.streams.demo.input_data import DemoInput, InputRecord, demo_input
from examples.streams.demo.output_check import (
    JoinCheck,
    WordCountCheck,
    check_joins,
    check_word_counts,
    read_committed,
    unprocessed,
)
from examples.streams.demo.streams_instance import StreamsInstance
from kafka.clients.admin import AdminClient
from kafka.clients.admin.descriptions import NewTopic
from kafka.clients.errors import KafkaError
from kafka.clients.producer.kafka_producer import KafkaProducer
from kafka.utils.java_hash import java_string_hash, kafka_abs


class Brokers(Protocol):
    """The cluster's node processes, as the demo needs them."""

    def kill(self, node_id: int) -> None: ...  # kill -9

    def restart(self, node_id: int) -> None: ...


@dataclass(frozen=True)
class Application:
    main_class: str
    application_id: str  # its group id and the prefix of its internal topics
    inputs: tuple[str, ...]
    repartition: str  # the internal topic between its two sub-topologies, which its group reads too
    output: str

    @property
    def consumed(self) -> list[str]:
        """Every topic its group reads, and commits offsets of: processed means all of them caught up."""
        return [*self.inputs, self.repartition]


WORD_COUNT = Application("teaching.streams.WordCount", "wordcount", ("sentences",),
                         "wordcount-words-repartition", "word-counts")
ORDER_PAYMENTS = Application("teaching.streams.OrderPayments", "order-payments", ("orders", "payments"),
                             "order-payments-payments-by-order-repartition", "paid-orders")
APPLICATIONS = (WORD_COUNT, ORDER_PAYMENTS)
PHASE_TWO = "phase 2 across an instance's kill -9"


@dataclass
class DemoResult:
    input: DemoInput
    # restarted instance: {(store, changelog partition): records restored from it}
    restored: dict[str, dict[tuple[str, str], int]] = field(default_factory=dict)
    killed_broker: int = -1
    word_counts: WordCountCheck | None = None
    joins: JoinCheck | None = None
    seconds: dict[str, float] = field(default_factory=dict)  # step: how long it took

    @property
    def exact(self) -> bool:
        return self.word_counts is not None and self.word_counts.exact and self.joins is not None \
            and self.joins.exact

    def summary(self) -> list[str]:
        """A few lines a student reads at the end: what was done to the applications, and the verdict."""
        counts, joins, given = self.word_counts, self.joins, self.input
        lines = ["Kafka Streams 4.4 on three brokers, two instances each, exactly_once_v2",
                 f"  input        {given.sentences} sentences ({sum(counts.expected.values())} words, "
                 f"{len(counts.expected)} different), {given.orders} orders, {given.payments} payments, "
                 "in three phases",
                 "  kill -9      wordcount-1 and order-payments-1 in the middle of phase 2: the other "
                 f"instances took their tasks and finished it ({self.seconds.get(PHASE_TWO, 0):.0f} s)"]
        for name, restored in self.restored.items():
            stores = ", ".join(sorted({store for store, _ in restored}))
            done = (f"restored {sum(restored.values())} records of {stores} from {len(restored)} changelog "
                    f"partition{'s' if len(restored) > 1 else ''}" if restored
                    else "given no active task back yet (it keeps standby copies)")
            lines.append(f"  restarted    {name}: {done}")
        lines.append(f"  kill -9      broker {self.killed_broker} (the coordinator of group wordcount) "
                     "during phase 3, then started again")
        wrong = dict(list(counts.wrong.items())[:5])
        verdict = ("every word's last count exact, no count ever going back" if counts.exact else
                   f"{len(counts.wrong)} words wrong (last read, expected): {wrong}, "
                   f"{len(counts.went_back)} went back")
        lines.append(f"  word-counts  read_committed: {len(counts.last)} words, {counts.updates} updates; "
                     f"{verdict}")
        lines.append(f"  paid-orders  read_committed: {sum(joins.read.values())} joins, "
                     f"{sum(joins.expected.values())} expected; {sum(joins.missing.values())} missing, "
                     f"{joins.duplicates} twice, {sum(joins.unexpected.values())} unexpected")
        lines.append("EXACT: every count and every join is what the input implies, once" if self.exact
                     else "NOT EXACT: the output differs from what the input implies (above)")
        return lines


class StreamsDemo:
    def __init__(self, bootstrap: str, brokers: Brokers, jar: Path, data_dir: Path,
                 say: Callable[[str], None], sentences: int = 600, orders: int = 300, partitions: int = 2,
                 step_timeout: float = 90.0) -> None:
        self.bootstrap = bootstrap
        self.brokers = brokers
        self.jar = jar
        self.data_dir = data_dir
        self.say = say
        self.partitions = partitions
        self.step_timeout = step_timeout
        # record time two hours back: timestamps in the past, spread over half an hour
        self.input = demo_input(sentences, orders, start_ms=int(time.time() * 1000) - 2 * 3600_000)
        self.instances = {app.application_id: [
            StreamsInstance(f"{app.application_id}-{n}", app.main_class, jar, bootstrap,
                            data_dir / f"{app.application_id}-{n}", say) for n in (1, 2)]
            for app in APPLICATIONS}
        self.admin: AdminClient | None = None  # made once the three brokers are registered (create_topics)
        self.result = DemoResult(self.input)

    def run(self) -> DemoResult:
        try:
            self._step("topics", self.create_topics)
            self._step("start four instances", self.start_instances)
            self._step("phase 1", lambda: self.produce_and_await(0))
            self._step(PHASE_TWO, self.phase_two_across_instance_kills)
            self._step("restart the killed instances", self.restart_killed_instances)
            self._step("phase 3 across a broker's kill -9", self.phase_three_across_a_broker_kill)
            self._step("check the output", self.check_output)
            return self.result
        finally:
            self.stop()

    def _step(self, name: str, action: Callable[[], None]) -> None:
        began = time.monotonic()
        action()
        self.result.seconds[name] = time.monotonic() - began

    # ------------------------------------------------------------------ the steps
    def create_topics(self) -> None:
        """Input and output topics with three replicas, two of them needed for a write; a clean slate first
        (a second run on the same cluster drops the first one's topics, internal ones too, and its state)."""
        self._await(lambda: len(self._live_brokers()) == 3, "three brokers to be registered and unfenced")
        # An admin client knows the brokers of its last Metadata: made now, it knows all three.
        self.admin = self._admin_client()
        ours = {t for app in APPLICATIONS for t in (*app.inputs, app.output)}
        leftovers = {t for t in self.admin.list_topics()
                     if t in ours or t.startswith(tuple(f"{a.application_id}-" for a in APPLICATIONS))}
        if leftovers:
            self.say(f"deleting the topics of an earlier run: {', '.join(sorted(leftovers))}")
            self.admin.delete_topics(leftovers)
            self._await(lambda: not (set(self.admin.list_topics()) & leftovers), "the old topics to be gone")
            self.admin.delete_consumer_groups([a.application_id for a in APPLICATIONS])
        shutil.rmtree(self.data_dir, ignore_errors=True)
        self.data_dir.mkdir(parents=True)
        errors = self.admin.create_topics([NewTopic(t, self.partitions, 3, {"min.insync.replicas": "2"})
                                           for t in sorted(ours)])
        failed = {t: e for t, e in errors.items() if e is not None}
        assert not failed, f"creating the topics failed: {failed}"
        self.say(f"created {', '.join(sorted(ours))}: {self.partitions} partitions, 3 replicas, "
                 "min.insync.replicas=2")

    def start_instances(self) -> None:
        for instance in self.all_instances():
            instance.start()
        self._await(lambda: all(i.is_running_streams() for i in self.all_instances()),
                    "all four instances to be RUNNING")

    def produce_and_await(self, phase: int) -> None:
        records = self.input.phases[phase]
        self.produce(records)
        self.say(f"phase {phase + 1}: wrote {len(records)} records "
                 f"({', '.join(f'{n} to {t}' for t, n in _per_topic(records).items())})")
        self.await_processed()

    def phase_two_across_instance_kills(self) -> None:
        """Half of phase 2, then kill -9 one instance of each application while it works on it (a transaction
        open, its offsets not committed), then the other half; the survivors must finish all of it."""
        records = self.input.phases[1]
        half = len(records) // 2
        self.produce(records[:half])
        self.say(f"phase 2: wrote {half} records; killing an instance of each application while they "
                 "process them")
        for app in APPLICATIONS:
            self.instances[app.application_id][0].kill()
        self.produce(records[half:])
        self.say(f"phase 2: wrote the other {len(records) - half} records")
        self.await_processed()

    def restart_killed_instances(self) -> None:
        restarted = [self.instances[app.application_id][0] for app in APPLICATIONS]
        for instance in restarted:
            instance.start()
        self._await(lambda: all(i.is_running_streams() for i in self.all_instances()),
                    "the restarted instances to be RUNNING")

    def phase_three_across_a_broker_kill(self) -> None:
        victim = self.group_coordinator(WORD_COUNT.application_id)
        self.result.killed_broker = victim
        self.say(f"killing broker {victim} with kill -9: it coordinates group {WORD_COUNT.application_id} "
                 "(and leads some of the partitions)")
        self.brokers.kill(victim)
        records = self.input.phases[2]
        self.produce(records)
        self.say(f"phase 3: wrote {len(records)} records while broker {victim} was down")
        self.say(f"starting broker {victim} again")
        self.brokers.restart(victim)
        self._await(lambda: victim in self._live_brokers(), f"broker {victim} to register again")
        self.say(f"broker {victim} is back")
        self.await_processed()

    def check_output(self) -> None:
        for app in APPLICATIONS:
            restarted = self.instances[app.application_id][0]
            self.result.restored[restarted.name] = restarted.restored(restarted.starts)
        self.result.word_counts = check_word_counts(read_committed(self.bootstrap, WORD_COUNT.output),
                                                    self.input.expected_word_counts())
        self.result.joins = check_joins(read_committed(self.bootstrap, ORDER_PAYMENTS.output),
                                        self.input.expected_joins())

    # ------------------------------------------------------------------ helpers
    def all_instances(self) -> list[StreamsInstance]:
        return [i for instances in self.instances.values() for i in instances]

    def produce(self, records: tuple[InputRecord, ...]) -> None:
        """An idempotent producer with acks=all: nothing it was told is written can be lost or doubled."""
        producer = KafkaProducer({"bootstrap.servers": self.bootstrap, "acks": "all", "linger.ms": 5,
                                  "delivery.timeout.ms": 60000})
        try:
            futures = [producer.send(r.topic, key=r.key, value=r.value, timestamp_ms=r.timestamp_ms)
                       for r in records]
            producer.flush(self.step_timeout)
            for future in futures:
                future.get(0)
        finally:
            producer.close()

    def await_processed(self) -> None:
        """Until both groups have committed every record of their input and repartition topics (their
        transactions did): then every record written so far has made its way to the output."""
        last: list[object] = ["nothing yet"]

        def processed() -> bool:
            self._check_instances()
            try:
                last[0] = {app.application_id: unprocessed(self.admin, app.application_id, app.consumed)
                           for app in APPLICATIONS}
            except KafkaError as e:  # a broker slow to answer, or just killed: ask again
                last[0] = e
                return False
            return not any(last[0].values())
        self._await(processed, "the applications to process every input record", lambda: f"lag: {last[0]}")

    def group_coordinator(self, group: str) -> int:
        """The leader of the __consumer_offsets partition the group's id hashes to (GroupCoordinatorService's
        partitionFor): the broker that runs the group's rebalances and stores its offsets."""
        offsets_topic = self.admin.describe_topics(["__consumer_offsets"])["__consumer_offsets"]
        partition = kafka_abs(java_string_hash(group)) % len(offsets_topic.partitions)
        return offsets_topic.partitions[partition].leader

    def _admin_client(self) -> AdminClient:
        return AdminClient({"bootstrap.servers": self.bootstrap, "request.timeout.ms": 10000,
                            "default.api.timeout.ms": 30000})

    def _live_brokers(self) -> set[int]:
        """The brokers the controller counts as alive (DescribeCluster: registered, not fenced)."""
        try:
            with self._admin_client() as admin:
                return {b.node_id for b in admin.describe_cluster()[2]}
        except KafkaError:  # no broker answered yet
            return set()

    def _check_instances(self) -> None:
        for instance in self.all_instances():
            if instance.starts and not instance.running and instance.process.returncode != -9:
                raise AssertionError(f"{instance.name} exited with {instance.process.returncode}:\n"
                                     f"{instance.stderr_tail()}")

    def _await(self, condition: Callable[[], bool], what: str, last_seen: Callable[[], str] = str) -> None:
        deadline = time.monotonic() + self.step_timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {self.step_timeout:.0f} s for {what} {last_seen()}")
            time.sleep(0.2)

    def stop(self) -> None:
        for instance in self.all_instances():
            instance.stop()
        if self.admin is not None:
            self.admin.close()


def _per_topic(records: tuple[InputRecord, ...]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in records:
        counts[r.topic] = counts.get(r.topic, 0) + 1
    return counts
