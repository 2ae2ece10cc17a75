"""The fixed-seed nemesis run: about a minute of partitions, pauses and kill -9 on three nodes in
network namespaces, under idempotent acks=all producers and consumers; nothing acknowledged lost,
nothing duplicated, nothing reordered, no other anomaly (tests/nemesis/checker.py).

Seed 2 draws an isolated node, a kill -9, a node split from the other two (its clients still reach
it), a bridge and a pause past broker.session.timeout.ms. The same seed replays the same schedule:
`make nemesis SEED=2 DURATION=60`. Skipped, with the reason, where namespaces cannot be made.
Apache Kafka's Java KafkaProducer writes beside the librdkafka producers and a Java KafkaConsumer joins
the group (tests/nemesis/java_clients.py) where the JVM tier has a JDK and kafka-clients; elsewhere the
run says why and goes on without them.
"""

from __future__ import annotations

import re

import pytest

from tests.nemesis.hosts import unavailable_reason
from tests.nemesis.nemesis import schedule
from tests.nemesis.run import run

SEED, DURATION = 2, 60

pytestmark = pytest.mark.timeout(600)


def test_the_schedule_replays_from_its_seed():
    assert schedule(SEED, DURATION) == schedule(SEED, DURATION)
    assert schedule(SEED, DURATION) != schedule(SEED + 1, DURATION)
    kinds = {f.kind for f in schedule(SEED, DURATION, netem=False)}
    assert {"isolate", "split", "bridge", "pause", "kill"} <= kinds


def test_a_minute_of_faults_loses_duplicates_and_reorders_nothing(tmp_path):
    reason = unavailable_reason()
    if reason:
        pytest.skip(f"no hosts for the nemesis here: {reason}")
    lines: list[str] = []
    verdict = run(SEED, DURATION, tmp_path, log=lines.append)
    print("\n".join([*lines, verdict.line()]))
    assert verdict.faults >= 4, lines
    assert verdict.acknowledged > 1000, verdict.line()
    assert verdict.ok, f"{verdict.line()}\n{verdict.details()}"
    if verdict.java is not None:
        assert verdict.java_acknowledged > 1000, verdict.line()
        java = next(line for line in lines if line.startswith("nemesis: Java producer"))
        assert re.search(r"Java consumer [1-9]\d* records read, [1-9]\d* offsets committed", java), java
