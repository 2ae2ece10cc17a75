"""Lab 14, share groups (docs/labs/14-share-groups.md): `SharePartition._release_acquisition_lock_on_timeout`
in kafka/server/share/share_partition.py, what the share-lock timer runs when a member held records longer
than `group.share.record.lock.duration.ms`: first on a SharePartition over a real ReplicaManager and a mock
clock, then on a real broker. And the page's steps, with tests/labs/share_workers.py as the page runs it:
six consumers in a consumer group and in a share group on one topic of two partitions, a poison record
released until the delivery count limit archives it, one too slow for its lock, and the dashboard's
Share groups row.

Seed 004: "Consumer Group Protocol makes sure that in each group, consumers can process more than one
partition but partitions can be access by only one consumer. [...] Make sure there are more partitions than
the number of consumers."
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter

import pytest

from kafka.protocol.errors import Errors
from kafka.server.replica_manager import FetchParams
from kafka.server.share.record_state import RecordState
from kafka.tools.lab import REPO
from tests.helpers import InProcessBroker
from tests.labs import share_workers
from tests.metrics.scrape import scrape
from tests.server.share.conftest import GROUP, TIP, Env
from tests.server.share.helpers import ACCEPT, acknowledge, acquired, states, window

LOCK_MS = 30_000  # group.share.record.lock.duration.ms, the default the unit checks run with


@pytest.fixture
def env(tmp_path):
    environment = Env(tmp_path)
    yield environment
    environment.close()


def test_the_lock_runs_out_and_the_records_come_back(env):
    """a record whose acquisition lock runs out goes back to AVAILABLE, and the next share fetch
    delivers it again with its delivery count one higher; its first member may no longer acknowledge it"""
    env.produce(b"a", b"b")
    assert acquired(env, "m1") == [(0, 1, 1)]
    env.advance(LOCK_MS - 1)
    assert states(env) == [(0, 1, "ACQUIRED", 1)], "the lock has a millisecond left"
    env.advance(1)
    assert states(env) == [(0, 1, "AVAILABLE", 1)], (
        f"got {states(env)}: when the lock runs out, the member's ACQUIRED records become AVAILABLE "
        "(try_update_state to AVAILABLE, DeliveryCountOps.NO_OP, no member)")
    assert acquired(env, "m2") == [(0, 1, 2)], "the next fetch gets them, a second delivery"
    error, _ = acknowledge(env, "m1", 0, 1, ACCEPT)
    assert error == Errors.INVALID_RECORD_STATE, f"m1's acknowledgement came too late, yet it got {error}"


def test_the_last_delivery_s_lock_archives_the_record(env):
    """a lock that runs out on a record's last delivery (group.share.delivery.count.limit) archives it, and
    the share-partition start offset moves past it"""
    env.group_configs["share.delivery.count.limit"] = "2"
    env.produce(b"poison")
    env.produce(b"fine")
    assert acquired(env, "m1", max_records=1) == [(0, 0, 1)]
    env.advance(LOCK_MS)
    assert acquired(env, "m2", max_records=1) == [(0, 0, 2)], "delivered a second time"
    env.advance(LOCK_MS)
    assert states(env) == [], f"got {states(env)}: on its last delivery the record is ARCHIVED, not AVAILABLE"
    assert window(env)[0] == 1, (
        f"the start offset is {window(env)[0]}: once written, move it past what is done "
        "(_maybe_update_cached_state_and_offsets)")
    assert acquired(env, "m3") == [(1, 1, 1)], "the next record is the one after the poison"


def test_only_what_is_still_held_comes_back(env):
    """of a batch whose member accepted some records, only those it still held when the lock ran out come
    back; the accepted ones stay acknowledged"""
    env.produce(b"a", b"b", b"c", b"d")
    assert acquired(env, "m1") == [(0, 3, 1)]
    assert acknowledge(env, "m1", 0, 1, ACCEPT) == (Errors.NONE, None)
    env.advance(LOCK_MS)
    assert states(env) == [(0, 0, "ACKNOWLEDGED", 1), (1, 1, "ACKNOWLEDGED", 1), (2, 2, "AVAILABLE", 1),
                           (3, 3, "AVAILABLE", 1)], (
        f"got {states(env)}: only the member's ACQUIRED runs (the batch's acquired_states) go back")
    assert window(env)[0] == 2
    assert acquired(env, "m2") == [(2, 3, 2)]


def test_the_timeout_is_written_to_the_share_coordinator(env):
    """the new state of the records whose lock ran out is written through the persister (to the share
    coordinator), so a new leader would deliver them again, with their delivery count"""
    env.produce(b"a", b"b")
    acquired(env, "m1")
    writes_before = len(env.persister.writes)
    env.advance(LOCK_MS)
    written = [(b.first_offset, b.last_offset, RecordState(b.delivery_state).name, b.delivery_count)
               for _, _, batches in env.persister.writes[writes_before:] for b in batches]
    assert written == [(0, 1, "AVAILABLE", 1)], (
        f"the persister was sent {written}: one PersisterStateBatch per run that changed "
        "(_write_share_group_state)")


def test_a_waiting_share_fetch_gets_the_records_at_once(env):
    """a share fetch waiting in the purgatory for records is completed as soon as a lock runs out and its
    records are available again, not at the end of its max wait"""
    env.produce(b"a")
    acquired(env, "m1")
    params = FetchParams(replica_id=-1, max_wait_ms=LOCK_MS * 4, min_bytes=1, max_bytes=1 << 20,
                         isolation_level=0)
    waiting = env.manager.fetch_messages(GROUP, "m2", params, 0, 1, 500, 500, [TIP])
    assert not waiting.done(), "nothing to give m2 yet: it waits"
    env.advance(LOCK_MS)
    assert waiting.done(), (
        "the lock ran out, yet m2's fetch still waits: after the write, tell the waiting fetches "
        "(self.delayed_request_notifier)")
    records = waiting.result()[TIP]["acquired_records"]
    assert [(r["first_offset"], r["last_offset"], r["delivery_count"]) for r in records] == [(0, 0, 2)]


# ------------------------------------------------------------------ the page's steps, on a real broker

SETTINGS = {"group.share.record.lock.duration.ms": "1000", "group.share.min.record.lock.duration.ms": "1000",
            # quick heartbeats: a member gets its partitions soon after their share state exists
            "group.share.heartbeat.interval.ms": "500", "group.share.min.heartbeat.interval.ms": "500",
            "group.consumer.heartbeat.interval.ms": "1000",
            "group.consumer.min.heartbeat.interval.ms": "1000",
            "offsets.topic.num.partitions": "1", "share.coordinator.state.topic.num.partitions": "1"}


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    started = InProcessBroker(tmp_path_factory.mktemp("lab14") / "data", dict(SETTINGS))
    yield started
    started.stop()


def tool(module: str, *args: str) -> str:
    """A kafka-* tool as the page runs it, its standard output."""
    done = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=60,
                          cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done.stdout


def members_table(output: str) -> list[list[str]]:
    """The rows under the header of a --describe --members table."""
    lines = [line.split() for line in output.splitlines() if line.strip()]
    return lines[1:]


def test_step_1_a_consumer_group_leaves_four_of_six_consumers_idle(broker):
    """step 1: six consumers in a consumer group on two partitions: two get every record, four get none,
    and kafka-consumer-groups --describe --members shows the four with no partition"""
    described = {}

    def describe(result: dict) -> None:
        described["members"] = members_table(tool("kafka.tools.consumer_groups",
                                                  "--bootstrap-server", broker.bootstrap, "--describe",
                                                  "--group", "lab14-consumers", "--members"))
    result = share_workers.consumer_group(broker.bootstrap, hold=describe)
    assert sorted(jobs for _, jobs in result.values()) == [0, 0, 0, 0, 30, 30], result
    assert sorted(tuple(partitions) for partitions, _ in result.values()) == [(), (), (), (), (0,), (1,)]
    partitions_column = sorted(row[4] for row in described["members"])
    assert partitions_column == ["0", "0", "0", "0", "1", "1"], described["members"]


def test_step_2_a_share_group_gives_every_consumer_records(broker):
    """step 2: the same six consumers in a share group on the same two partitions: every one gets records,
    and kafka-share-groups --describe --members shows three members reading each partition"""
    described = {}

    def describe(result: dict) -> None:
        described["members"] = members_table(tool("kafka.tools.share_groups_command", "--bootstrap-server",
                                                  broker.bootstrap, "--describe", "--group", "lab14-share",
                                                  "--members"))
    result = share_workers.share_group(broker.bootstrap, hold=describe)
    assert sum(jobs for _, jobs in result.values()) == share_workers.JOBS, result
    assert all(jobs > 0 for _, jobs in result.values()), f"a worker got nothing: {result}"
    readers = Counter(row[5] for row in described["members"])
    assert readers == {"lab14:0": 3, "lab14:1": 3}, described["members"]


def test_step_3_a_released_poison_record_is_archived_after_the_delivery_count_limit(broker):
    """step 3: a record released by every worker that gets it is delivered group.share.delivery.count.limit
    times, one delivery more each time, then archived; RecordAcknowledgementsPerSec counts the releases"""
    before = scrape(broker)
    result = share_workers.poison(broker.bootstrap, report=lambda line: None)
    counts = [d.delivery_count for d in result["deliveries"]]
    assert counts == list(range(1, result["limit"] + 1)) and result["limit"] == 5, counts
    assert result["start_offset"] > result["poison_offset"], result
    releases = 'kafka_server_sharegroupmetrics_recordacknowledgements_total'
    moved = scrape(broker).value(releases, ackType="Release") - before.value(releases, ackType="Release")
    assert moved == result["limit"], f"{moved} releases counted"


def test_step_3_a_rejected_record_is_archived_at_once(broker):
    """step 3: a record rejected is archived at once: it is delivered once only"""
    result = share_workers.poison(broker.bootstrap, group="lab14-reject", reject=True,
                                  report=lambda line: None)
    assert [d.delivery_count for d in result["deliveries"]] == [1]
    assert result["start_offset"] > result["poison_offset"], result


def test_step_3_a_rejected_record_lands_in_the_dead_letter_queue(broker):
    """step 3, the dead-letter queue: share.version 2, a topic that agrees to be a DLQ, the group naming it;
    the rejected job is archived and its context is on the DLQ topic, read with kafka-console-consumer"""
    server = ("--bootstrap-server", broker.bootstrap)
    assert "share.version was upgraded to 2." in tool("kafka.tools.features_command", *server, "upgrade",
                                                      "--feature", "share.version=2")
    tool("kafka.tools.topics", *server, "--create", "--topic", "dlq.lab14",
         "--config", "errors.deadletterqueue.group.enable=true")
    tool("kafka.tools.config_command", *server, "--alter", "--entity-type", "groups", "--entity-name",
         "lab14-dlq", "--add-config", "errors.deadletterqueue.topic.name=dlq.lab14")
    result = share_workers.poison(broker.bootstrap, group="lab14-dlq", reject=True, report=lambda line: None)
    assert [d.delivery_count for d in result["deliveries"]] == [1]
    line = tool("kafka.tools.console_consumer", *server, "--topic", "dlq.lab14", "--from-beginning",
                "--property", "print.headers=true", "--max-messages", "1").strip()
    assert line == (f"__dlq.errors.topic:{share_workers.TOPIC},__dlq.errors.partition:0,"
                    f"__dlq.errors.offset:{result['poison_offset']},__dlq.errors.group:lab14-dlq,"
                    "__dlq.errors.delivery.count:1,__dlq.errors.message:Offset rejected by client.\tnull"
                    ), line


@pytest.fixture(scope="module")
def too_slow(broker):
    """Step 4 on the module's broker, and /metrics read while its workers are still in the group."""
    scraped = {}
    result = share_workers.slow(broker.bootstrap, report=lambda line: None,
                                hold=lambda _: scraped.update(scrape=scrape(broker)), timeout=30)
    return result, scraped["scrape"]


def test_step_4_a_record_too_slow_for_its_lock_goes_to_another_worker_until_it_is_archived(too_slow):
    """step 4: a record that takes every worker longer than its lock is delivered again each time the lock
    runs out, to another worker, then archived after the last delivery; AcquisitionLockTimeoutPerSec counts
    the locks that ran out"""
    result, metrics = too_slow
    deliveries = result["deliveries"]
    assert [d.delivery_count for d in deliveries] == [1, 2, 3, 4, 5], deliveries
    assert len({d.worker for d in deliveries}) >= 2, f"the same worker every time: {deliveries}"
    timeouts = metrics.value("kafka_server_sharepartitionmetrics_acquisitionlocktimeout_total",
                             group="lab14-slow", topic=share_workers.TOPIC, partition="0")
    assert timeouts == result["limit"], f"{timeouts} locks ran out"


def share_row_metric_names() -> set[str]:
    """The metrics the dashboard's Share groups row queries (docs/dashboards/kafka-teaching.json)."""
    dashboard = json.loads((REPO / "docs" / "dashboards" / "kafka-teaching.json").read_text(encoding="utf-8"))
    panels, in_row = [], False
    for panel in dashboard["panels"]:
        if panel["type"] == "row":
            in_row = panel["title"].startswith("Share groups")
        elif in_row:
            panels.append(panel)
    assert panels, "the dashboard has a Share groups row"
    return {name for panel in panels for target in panel["targets"]
            for name in re.findall(r"\bkafka_[a-z_]+", target["expr"])}


def test_step_5_every_series_of_the_dashboard_s_share_groups_row_is_exported(too_slow):
    """step 5: every metric the dashboard's Share groups row draws is on the broker's /metrics once share
    consumers have run (in flight, acknowledged, released, timed out, refused)"""
    _, metrics = too_slow
    missing = sorted(share_row_metric_names() - metrics.names())
    assert not missing, f"the Share groups row queries metrics the broker does not export: {missing}"
