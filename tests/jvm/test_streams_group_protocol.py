"""A Kafka Streams 4.4 application with the streams group protocol (KIP-1071, `group.protocol=streams`)
against the broker as `make run` starts it: two instances of a word count
(tests/jvm/src/streams/java/teaching/jvm/WordCountInstance.java), each with two stream threads, exactly once.

Nothing of the application's plan is the client's alone any more: its first heartbeat gives the broker the
topology (two subtopologies, a repartition topic between them and the count store's changelog), the broker
creates the two internal topics (MISSING_INTERNAL_TOPICS until they exist), and its StickyTaskAssignor
hands the tasks out over the four members of the two processes. The second instance joins while the first
counts, and tasks move to it. Every word is counted exactly once: the last count of each word on the output
topic, read committed, is the number of times it was written.
"""

from __future__ import annotations

import queue
import subprocess
import threading
from collections import Counter
from pathlib import Path

import pytest

from kafka.clients.admin.admin_client import AdminClient, NewTopic
from kafka.clients.consumer.kafka_consumer import KafkaConsumer
from kafka.clients.producer.kafka_producer import KafkaProducer
from kafka.protocol.api_keys import ApiKey
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import BrokerProcess, wait_until
from tests.jvm.jvm import classpath
from tests.wire import WireClient

pytestmark = pytest.mark.timeout(420)

SOURCES = Path(__file__).resolve().parent / "src" / "streams" / "java"
APPLICATION = "wordcount"
WORDS, COUNTS, PARTITIONS = "words", "word-counts", 4
VOCABULARY = ("kafka", "stream", "group", "task", "topic", "epoch", "broker", "record", "offset", "member")
# Heartbeats every half second (Kafka's default is 5 s, its lower bound too: both lowered here).
BROKER_SETTINGS = {"group.streams.heartbeat.interval.ms": "500",
                   "group.streams.min.heartbeat.interval.ms": "500"}


def compile_application(out_dir: Path) -> str:
    """javac the word count against Kafka Streams 4.4; the classpath to run it with."""
    jars = classpath("streams")
    done = subprocess.run(["javac", "-nowarn", "-Xlint:none", "--release", "17", "-d", str(out_dir), "-cp",
                           jars,
                           *sorted(str(p) for p in SOURCES.rglob("*.java"))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"javac against kafka-streams failed:\n{done.stderr}"
    return f"{out_dir}:{jars}"


class Instance:
    """One JVM of the application; its STATE lines are read on a thread, so the test waits on a condition."""

    def __init__(self, cp: str, bootstrap: str, state_dir: Path, name: str) -> None:
        self.name = name
        self.log = state_dir.parent / f"{name}.log"
        self.lines: queue.Queue[str] = queue.Queue()
        self.states: list[str] = []
        self.process = subprocess.Popen(
            ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", cp, "teaching.jvm.WordCountInstance",
             bootstrap, APPLICATION, str(state_dir), WORDS, COUNTS],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(self.log, "wb"), text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.strip())

    def seen(self, line: str) -> bool:
        while not self.lines.empty():
            self.states.append(self.lines.get())
        errors = [s for s in self.states if s.startswith("ERROR")]
        assert not errors, f"{self.name}: {errors}\n{self.log.read_text(errors='replace')[-3000:]}"
        return line in self.states

    def close(self) -> int:
        """Its standard input ends: the application closes (committing what it has) and prints CLOSED."""
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(90)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def lines(first: int, n: int) -> list[str]:
    """Lines of words from a small vocabulary, the same every run."""
    return [" ".join(VOCABULARY[(i * 7 + j * 3) % len(VOCABULARY)] for j in range(1 + i % 5))
            for i in range(first, first + n)]


def produce(bootstrap: str, text: list[str]) -> None:
    with KafkaProducer({"bootstrap.servers": bootstrap}) as producer:
        for i, line in enumerate(text):
            producer.send(WORDS, key=f"line-{i}".encode(), value=line.encode())
        producer.flush()


def latest_counts(bootstrap: str) -> dict[str, int]:
    """The last count of each word on the output topic, as a read_committed consumer sees them."""
    consumer = KafkaConsumer({"bootstrap.servers": bootstrap, "isolation.level": "read_committed",
                              "auto.offset.reset": "earliest", "enable.auto.commit": False})
    try:
        partitions = [TopicPartition(COUNTS, p) for p in range(PARTITIONS)]
        consumer.assign(partitions)
        ends = consumer.end_offsets(partitions)
        counts: dict[str, int] = {}
        while any(consumer.position(tp) < ends[tp] for tp in partitions):
            for record in consumer.poll(1000):
                counts[record.key.decode()] = int.from_bytes(record.value, "big", signed=True)
        return counts
    finally:
        consumer.close()


def describe(bootstrap: str) -> dict:
    """StreamsGroupDescribe of the application's group, as the wire carries it."""
    host, port = bootstrap.split(":")
    client = WireClient(int(port), timeout=30)
    try:
        answer = client.request(ApiKey.STREAMS_GROUP_DESCRIBE, 0,
                                {"group_ids": [APPLICATION], "include_authorized_operations": False})
    finally:
        client.close()
    return answer.groups[0].to_dict()


def count_words_with_two_instances(bootstrap: str, work: Path, cp: str) -> dict:
    """The scenario, against any broker: what the test checks."""
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        admin.create_topics([NewTopic(WORDS, PARTITIONS, 1), NewTopic(COUNTS, PARTITIONS, 1)])
    first, second = lines(0, 300), lines(300, 300)
    expected = Counter(w for line in first + second for w in line.split())
    produce(bootstrap, first)
    a = Instance(cp, bootstrap, work / "state-a", "instance-a")
    b = None
    try:
        wait_until(lambda: a.seen("STATE RUNNING"), timeout=120, message="instance a to run", interval=0.2)
        wait_until(lambda: latest_counts(bootstrap) == Counter(w for ln in first for w in ln.split()),
                   timeout=120, message="instance a to count the first lines", interval=0.5)
        b = Instance(cp, bootstrap, work / "state-b", "instance-b")
        wait_until(lambda: b.seen("STATE RUNNING"), timeout=120, message="instance b to run", interval=0.2)

        def both_process() -> dict | None:
            group = describe(bootstrap)
            processes = {m["process_id"] for m in group["members"] if m["assignment"]["active_tasks"]}
            return group if group["group_state"] == "Stable" and len(processes) == 2 else None
        group = wait_until(both_process, timeout=120, message="tasks on both instances", interval=0.5)
        produce(bootstrap, second)
        wait_until(lambda: latest_counts(bootstrap) == expected, timeout=120,
                   message="every word counted exactly once", interval=0.5)
    finally:
        closed = [i.close() for i in (a, b) if i is not None]
    return dict(group=group, closed=closed, internal_topics=internal_topics(bootstrap))


def internal_topics(bootstrap: str) -> set[str]:
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        return {t for t in admin.list_topics() if t.startswith(APPLICATION)}


def test_two_instances_count_words_exactly_with_the_streams_protocol(tmp_path):
    cp = compile_application(tmp_path / "classes")
    broker = BrokerProcess(tmp_path / "data", BROKER_SETTINGS)
    try:
        result = count_words_with_two_instances(broker.bootstrap, tmp_path, cp)
    finally:
        broker.stop()
    assert result["closed"] == [0, 0]
    assert result["internal_topics"] == {f"{APPLICATION}-word-counts-repartition",
                                         f"{APPLICATION}-word-counts-changelog"}, "created by the broker"
    group = result["group"]
    assert len(group["members"]) == 4, "two instances of two stream threads"
    active = [(t["subtopology_id"], p) for m in group["members"] for t in m["assignment"]["active_tasks"]
              for p in t["partitions"]]
    assert sorted(active) == [(s, p) for s in ("0", "1") for p in range(PARTITIONS)], "each task once"
