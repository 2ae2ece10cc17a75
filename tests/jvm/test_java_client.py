"""The Java client against the broker: kafka-clients 4.4.0 and 3.9.1 (issue 28, part 1).

One broker process per client version, as `make run` starts it; one JVM runs the four scenarios of
tests/jvm/src/main/java/teaching/jvm/ against it and prints a JSON summary, which these tests read.
"""

from __future__ import annotations

import pytest

from tests.helpers import BrokerProcess
from tests.jvm.jvm import CLIENT_PROFILES, compile_scenarios, run_scenarios

pytestmark = pytest.mark.timeout(300)

SCENARIOS = ("producer", "consumer-group", "transactions", "transactions-consumer-protocol", "admin",
             "rolling-upgrade")


@pytest.fixture(scope="module", params=CLIENT_PROFILES)
def results(request, tmp_path_factory):
    profile = request.param
    cp = compile_scenarios(profile, tmp_path_factory.mktemp(f"classes-{profile}"))
    # A new group's first rebalance would wait group.initial.rebalance.delay.ms (3 s) per group.
    broker = BrokerProcess(tmp_path_factory.mktemp(f"broker-{profile}") / "data",
                           {"group.initial.rebalance.delay.ms": "0"})
    try:
        yield {**run_scenarios(cp, broker.bootstrap, *SCENARIOS), "profile": profile}
    finally:
        broker.stop()


def scenario(results: dict, name: str) -> dict:
    result = results[name]
    assert "error" not in result, result["error"]
    return result


def test_producer_java_defaults_every_codec(results):
    r = scenario(results, "producer")
    for codec, outcome in r["codecs"].items():
        assert outcome == {"callbacks": 50, "acked": 50, "errors": []}, codec
    assert r["partitioner_mismatches"] == 0  # keys land where murmur2 says, as Kafka's partitioner puts them
    assert r["consumed"] == r["end_offsets_total"] == 250
    assert r["mismatches"] == []  # partition, offset, key, value and header as acknowledged


@pytest.mark.parametrize("assignor", ["range", "cooperative-sticky"])
def test_consumer_group_of_three(results, assignor):
    r = scenario(results, "consumer-group")[assignor]
    assert "error" not in r, r["error"]
    assert r["consumed"] == 60
    before, after = r["assignment_before"], r["assignment_after_leave"]
    assert sorted(p for member in before for p in member) == list(range(6)) and all(len(m) == 2
                                                                                    for m in before)
    assert sorted(p for member in after for p in member) == list(range(6)) and all(len(m) == 3 for m in after)
    if assignor == "range":
        assert before == [[0, 1], [2, 3], [4, 5]] and after == [[0, 1, 2], [3, 4, 5]]
    else:  # sticky: the survivors keep what they had and split the leaver's partitions
        assert all(set(b) <= set(a) for b, a in zip(before[:2], after, strict=True))
    assert r["end_offset"] == 10
    assert (r["offset_for_time"], r["offset_for_time_timestamp"]) == (5, 1_700_000_005_000)
    assert r["offset_for_future_time"] is None
    assert r["offsets_after_seek"] == [7, 8, 9]
    assert r["paused"] and r["records_while_paused"] == 0 and r["records_after_resume"] == 10


@pytest.mark.parametrize("name", ["transactions", "transactions-consumer-protocol"])
def test_transactional_read_process_write_exactly_once(results, name):
    """group.protocol=classic, then consumer (KIP-848): sendOffsetsToTransaction with the member's epoch."""
    r, profile = scenario(results, name), results["profile"]
    assert r["processed"] == 90 and r["aborted_transactions"] >= 1
    assert r["group_committed_total"] == 90  # the input offsets, committed with the transactions
    committed = r["read_committed"]
    assert (committed["distinct"], committed["duplicates"], committed["missing"]) == (90, 0, 0)
    assert committed["records"] == 90
    # The aborted batches did reach the log: only read_committed hides them.
    assert r["read_uncommitted"]["records"] > 90
    # transaction.version 2 (KIP-890 part 2): the 4.x client's EndTxn v5 bumps the epoch at every commit and
    # abort, as DescribeTransactions shows; the 3.9 client keeps the first protocol, its epoch fixed.
    epochs = r["epochs_after_end"]
    assert len(epochs) == r["committed_transactions"] + r["aborted_transactions"]
    if profile == "clients-4":
        assert epochs == list(range(epochs[0], epochs[0] + len(epochs))), epochs
    else:
        assert set(epochs) == {epochs[0]}, epochs


def test_admin_api(results):
    r = scenario(results, "admin")
    failed = {name: op["error"] for name, op in r.items() if isinstance(op, dict) and not op["ok"]}
    assert failed == {}
    assert [p["partition"] for p in r["describeTopics"]["partitions"]] == [0, 1, 2]
    assert r["describeCluster"]["nodes"] == 1
    retention = r["describeConfigs"]["retention.ms"]
    assert (retention["value"], retention["source"]) == ("86400000", "DYNAMIC_TOPIC_CONFIG")
    # Kafka's rule: log.retention.hours (server.properties) is no synonym of retention.ms.
    assert retention["synonyms"] == ["retention.ms=86400000 (DYNAMIC_TOPIC_CONFIG)"]
    assert retention["documented"]
    assert r["describeConfigs"]["segment.bytes"]["synonyms"] == [
        "log.segment.bytes=1073741824 (STATIC_BROKER_CONFIG)",
        "log.segment.bytes=1073741824 (DEFAULT_CONFIG)"]
    assert r["describeConfigs"]["broker log.retention.hours"]["synonyms"] == [
        "log.retention.hours=168 (STATIC_BROKER_CONFIG)", "log.retention.hours=168 (DEFAULT_CONFIG)"]
    altered = r["incrementalAlterConfigs"]
    assert altered["retention.ms"]["value"] == "3600000"
    assert altered["cleanup.policy"]["value"] == "delete,compact"
    offsets = r["listOffsets"]
    assert (offsets["earliest"], offsets["latest"], offsets["max_timestamp_offset"],
            offsets["for_timestamp_offset"]) \
        == (0, 10, 9, 3)
    assert r["deleteRecords"] == {"ok": True, "low_watermark": 4, "earliest_after": 4}
    assert r["listConsumerGroups"]["found"] and r["describeConsumerGroups"]["state"] == "Empty"
    assert (r["listConsumerGroupOffsets"]["jvm-admin-0"], r["listConsumerGroupOffsets"]["jvm-admin-1"]) == (5,
                                                                                                            1)
    assert r["deleteConsumerGroupOffsets"]["remaining"] == 1 and r["deleteConsumerGroups"]["gone"]
    assert r["describeLogDirs"]["dirs"] == 1 and r["describeLogDirs"]["tp0_size"] > 0
    assert r["describeProducers"]["producers"] == 1 and r["describeProducers"]["last_sequence"] == 9
    assert r["describeTransactions"]["state"] == "CompleteCommit" and r["listTransactions"]["found"]
    assert r["electLeaders"]["tp0"] == "ElectionNotNeededException"  # as Kafka: already the preferred leader
    assert r["listPartitionReassignments"]["ongoing"] == 0
    assert r["describeMetadataQuorum"]["leader"] == 1 and r["describeMetadataQuorum"]["voters"] == 1
    features = r["describeFeatures"]
    low, high = map(int, features["supported"]["metadata.version"].split("-"))
    assert low <= features["finalized"]["metadata.version"] <= high and features["epoch"] >= 0
    assert r["deleteTopics"]["gone"]


def test_a_rolling_upgrade_from_classic_to_consumer_and_back(results):
    """Two Java consumers replaced one at a time by consumer-protocol ones and back (RollingUpgradeScenario):
    the group is upgraded online, keeps its classic member inside, is downgraded when the last member of
    the new protocol leaves, and every record is read (docs/groups.md, One group id, two protocols)."""
    r = scenario(results, "rolling-upgrade")
    assert r["types"] == ["classic", "consumer", "consumer", "classic"], r
    assert r["consumed"] == r["records"], r
