"""A Kafka Streams 4.4 word count whose input topic does not exist (issue 42's bad input), with the classic
group protocol and with the streams group protocol (KIP-1071), against this broker and against Apache Kafka
4.4 (tests/jvm/apache_kafka.py): Streams must give its own error, promptly, the same way on both.

The application is tests/jvm/src/streams/java/teaching/jvm/WordCountInstance.java. What happens:

* classic: the leader's StreamsPartitionAssignor finds the source topic missing from the metadata and
  hands every member an assignment that carries the error code INCOMPLETE_SOURCE_TOPIC_METADATA; each
  stream thread then throws MissingSourceTopicException;
* streams: the broker finds the source topic missing when the topology comes in (InternalTopicManager), and
  StreamsGroupHeartbeat answers with the status MISSING_SOURCE_TOPICS and its detail ("Source topics
  no-such-lines are missing.", which the exception's message quotes); a stream thread throws
  MissingSourceTopicException once the status has lasted two heartbeat intervals (the interval the broker
  gives, group.streams.heartbeat.interval.ms: 5 s by default on both brokers).

Either way the exception reaches the uncaught exception handler, which shuts the client down: PENDING_ERROR,
then ERROR. The test compares what the application printed (its states, the exception) and how long it
took, and that the client's log names the missing topic.
"""

from __future__ import annotations

import queue
import re
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import BrokerProcess, wait_until
from tests.jvm import resolve
from tests.jvm.apache_kafka import ApacheKafka
from tests.jvm.test_streams_group_protocol import compile_application

pytestmark = pytest.mark.timeout(240)

MISSING, COUNTS = "no-such-lines", "word-counts"
# The same on both brokers: no initial rebalance delay (3 s by default) before the classic group's first join.
SETTINGS = {"group.initial.rebalance.delay.ms": "0"}
MISSING_SOURCE_TOPIC = "org.apache.kafka.streams.errors.MissingSourceTopicException: "
TIMEOUT_EXCEEDED = re.compile(r"Timeout exceeded after (\d+)ms")
LOG_LINE = re.compile(r"^\S+Z \S+ (?P<level>WARN|ERROR) (?P<message>.*)$")
ABOUT_IT = re.compile(r"(?i)missing|SOURCE_TOPIC|SHUTDOWN_CLIENT|onPartitionsAssigned|error assignment")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass
class Outcome:
    """What one run of the application printed, each line with its seconds since the JVM started."""

    lines: list[tuple[float, str]]
    log: str
    exit_code: int

    @property
    def said(self) -> list[str]:
        return [line for _, line in self.lines]

    @property
    def said_by_application(self) -> list[str]:
        """Its STATE and ERROR lines (Kafka's log goes to standard output too), numbers as N."""
        return [re.sub(r"\d+", "N", line) for line in self.said if line.startswith(("STATE ", "ERROR "))]

    @property
    def logged(self) -> set[str]:
        """The client's WARN and ERROR log lines about the missing topic, without time, ids and numbers."""
        found = set()
        for line in self.said:
            if (m := LOG_LINE.match(line)) and ABOUT_IT.search(m["message"]):
                found.add(re.sub(r"\d+", "N", UUID.sub("<id>", f"{m['level']} {m['message']}")))
        return found

    def seconds_to(self, line: str) -> float:
        return next(t for t, said in self.lines if said == line)


def run_until_error(cp: str, bootstrap: str, work: Path, protocol: str) -> Outcome:
    """Start the word count on a topic nobody created; wait for it to reach ERROR, then close it."""
    name = f"{protocol}-{bootstrap.replace(':', '-')}"
    log = work / f"{name}.log"
    lines: queue.Queue[tuple[float, str]] = queue.Queue()
    began = time.monotonic()
    process = subprocess.Popen(
        ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", cp, "teaching.jvm.WordCountInstance",
         bootstrap, f"wordcount-{protocol}", str(work / f"state-{name}"), MISSING, COUNTS, protocol],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(log, "wb"), text=True)

    def read() -> None:
        for line in process.stdout:
            lines.put((time.monotonic() - began, line.strip()))
    threading.Thread(target=read, daemon=True).start()
    seen: list[tuple[float, str]] = []

    def reached_error() -> bool:
        while not lines.empty():
            seen.append(lines.get())
        return any(line == "STATE ERROR" for _, line in seen)
    try:
        wait_until(reached_error, timeout=90, message=f"{name} to reach ERROR", interval=0.1)
    except AssertionError as e:
        raise AssertionError(f"{e}: {seen}\n{log.read_text(errors='replace')[-3000:]}") from None
    finally:
        if process.poll() is None:
            process.stdin.close()
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    while not lines.empty():
        seen.append(lines.get())
    return Outcome(seen, log.read_text(errors="replace"), process.returncode)


@pytest.fixture(scope="module")
def application(tmp_path_factory) -> str:
    return compile_application(tmp_path_factory.mktemp("classes"))


@pytest.fixture(scope="module")
def apache_kafka(tmp_path_factory):
    try:
        kafka = ApacheKafka(tmp_path_factory.mktemp("apache-kafka"), overrides=SETTINGS).start()
    except resolve.ResolveError as e:
        pytest.fail(str(e), pytrace=False)
    yield kafka
    kafka.stop()


@pytest.fixture(scope="module")
def our_broker(tmp_path_factory):
    broker = BrokerProcess(tmp_path_factory.mktemp("ours") / "data", SETTINGS)
    yield broker
    broker.stop()


@pytest.mark.parametrize("protocol", ["classic", "streams"])
def test_a_missing_input_topic_stops_the_application_as_against_apache_kafka(protocol, application,
                                                                             apache_kafka, our_broker,
                                                                             tmp_path):
    theirs = run_until_error(application, apache_kafka.bootstrap, tmp_path, protocol)
    ours = run_until_error(application, our_broker.bootstrap, tmp_path, protocol)
    report = "\n".join(f"{side}: {o.seconds_to('STATE ERROR'):.1f} s {o.said_by_application}\n  "
                       + "\n  ".join(sorted(o.logged)) for side, o in (("apache", theirs), ("ours", ours)))
    print(report)
    for outcome in (theirs, ours):
        assert outcome.exit_code == 0, report  # it still closes cleanly, and prints CLOSED
        assert outcome.said[-1] == "CLOSED", report
        states = [line for line in outcome.said_by_application if line.startswith("STATE ")]
        assert states == ["STATE REBALANCING", "STATE PENDING_ERROR", "STATE ERROR"], report
        handled = {line for line in outcome.said_by_application if line.startswith("ERROR ")}
        assert len(handled) == 1 and MISSING_SOURCE_TOPIC in handled.pop(), report
        assert any(MISSING in line for line in outcome.logged), "the client's log names the topic"
    # the same exception (message and all, numbers aside) and the same log lines about it, as sets: neither
    # the order of the two stream threads' lines nor how many of them got so far is the broker's
    assert set(ours.said_by_application) == set(theirs.said_by_application), report
    assert ours.logged == theirs.logged, report
    if protocol == "streams":
        # MISSING_SOURCE_TOPICS from StreamsGroupHeartbeat; the client fails once it has persisted for two
        # heartbeat intervals, the interval the broker gave it (group.streams.heartbeat.interval.ms, 5 s)
        for outcome in (theirs, ours):
            waited = [int(m[1]) for line in outcome.said if (m := TIMEOUT_EXCEEDED.search(line))]
            assert waited and min(waited) >= 10_000, report
    # promptly, and in the same order of magnitude as Kafka
    assert theirs.seconds_to("STATE ERROR") / 10 <= ours.seconds_to("STATE ERROR") <= max(
        30.0, theirs.seconds_to("STATE ERROR") * 10), report
