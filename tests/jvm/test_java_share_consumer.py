"""Kafka's own KafkaShareConsumer (kafka-clients 4.4) against the broker as `make run` starts it: two members
of one share group read a topic of two partitions, each record delivered to one of them once, and a record
one member releases delivered again (tests/jvm/src/clients4/java/teaching/jvm/ShareGroupScenario.java)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import BrokerProcess
from tests.jvm.jvm import compile_scenarios, run_java

pytestmark = pytest.mark.timeout(300)


def test_two_java_share_consumers_share_a_topic(tmp_path):
    cp = compile_scenarios("clients-4", tmp_path / "classes")
    broker = BrokerProcess(tmp_path / "data", {"group.share.heartbeat.interval.ms": "500",
                                               "group.share.min.heartbeat.interval.ms": "500"})
    try:
        done = run_java(cp, "teaching.jvm.ShareGroupScenario", broker.bootstrap, timeout=240)
    finally:
        broker.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert "error" not in result and "member_error" not in result, result
    assert (result["duplicates"], result["missing"]) == ([], []), "every record delivered once"
    assert sum(result["received"].values()) == result["sent"]
    assert all(result["received"].values()), f"both members read: {result['received']}"
    assert result["released_deliveries"] == [1, 2], "released once, delivered again with delivery count 2"
