"""Acceptance: share groups (KIP-932) with confluent-kafka's ShareConsumer (librdkafka 2.16) against the
broker as `make run` starts it: members of one group share a topic's partitions, each record is acquired
by one member at a time, acknowledged (accept, release, reject), redelivered when released or when its
lock runs out, archived after group.share.delivery.count.limit deliveries; the share coordinator keeps
what was acknowledged across a restart. docs/share_groups.md tells the story.

share.auto.offset.reset is `latest` unless the group sets it (a group config: IncrementalAlterConfigs on
a GROUP resource), so a share partition starts at the end of its log when the group first fetches it;
each test but the one that sets it to earliest first warms the group up (`warm_up`), after which every
record produced is delivered.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
import urllib.request
import uuid

import pytest
from confluent_kafka import AcknowledgeType, Producer, ShareConsumer
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    ResourceType,
)

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from tests.helpers import REPO, BrokerProcess, unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.wire import WireClient

pytestmark = pytest.mark.broker

DELIVERY_COUNT_LIMIT = 3
# Quick heartbeats (a member gets its partitions soon after their share state exists); few internal
# partitions.
SHARE_SETTINGS = {"group.share.heartbeat.interval.ms": "500", "group.share.min.heartbeat.interval.ms": "500",
                  "group.share.delivery.count.limit": str(DELIVERY_COUNT_LIMIT),
                  "offsets.topic.num.partitions": "1", "share.coordinator.state.topic.num.partitions": "3"}
WARM_UP = b"warm-up"


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    started = BrokerProcess(tmp_path_factory.mktemp("share") / "data", SHARE_SETTINGS)
    yield started
    started.stop()


class Member:
    """One ShareConsumer of the group, subscribed to `topic`. `poll` returns the records that are not
    warm-ups; in explicit mode it accepts the warm-ups itself and acknowledges the others with `ack` when
    given (a record left unacknowledged must be acknowledged before the next poll, as librdkafka requires)."""

    def __init__(self, bootstrap: str, group: str, topic: str, explicit: bool = False) -> None:
        self.explicit = explicit
        self.consumer = ShareConsumer({"bootstrap.servers": bootstrap, "group.id": group,
                                       "share.acknowledgement.mode": "explicit" if explicit else "implicit"})
        self.consumer.subscribe([topic])
        self.warm_ups: set[int] = set()  # partitions a warm-up record was read from

    def poll(self, timeout: float = 0.3, ack: AcknowledgeType | None = None) -> list:
        got = []
        for message in self.consumer.poll(timeout):
            assert message.error() is None, message.error()
            if message.value() == WARM_UP:
                self.warm_ups.add(message.partition())
                if self.explicit:
                    self.consumer.acknowledge(message, AcknowledgeType.ACCEPT)
                continue
            got.append(message)
            if ack is not None:
                self.consumer.acknowledge(message, ack)
        return got

    def close(self) -> None:
        self.consumer.close()


def producer(bootstrap: str) -> Producer:
    return Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})


def produce(p: Producer, topic: str, values: list[str], partitions: int) -> None:
    for i, value in enumerate(values):
        p.produce(topic, value.encode(), partition=i % partitions)
    assert p.flush(10) == 0


def warm_up(members: list[Member], p: Producer, topic: str, partitions: int) -> None:
    """Until some member has read a warm-up record from every partition: then each share partition exists,
    started at the log's end of its first fetch, and every record produced from now on will be delivered."""
    def every_partition_read() -> bool:
        produce(p, topic, [WARM_UP.decode()] * partitions, partitions)
        for member in members:
            assert member.poll() == [], "only warm-ups so far"
        return set().union(*(m.warm_ups for m in members)) == set(range(partitions))
    wait_until(every_partition_read, timeout=60, message="the share group to read every partition")


def values(messages: list) -> list[str]:
    return [m.value().decode() for m in messages]


def test_three_members_share_two_partitions_and_every_record_is_delivered_once(broker):
    topic, group = unique_topic("shared"), f"g-{uuid.uuid4()}"
    create_topic(broker.bootstrap, topic, 2)
    members = [Member(broker.bootstrap, group, topic) for _ in range(3)]
    p = producer(broker.bootstrap)
    warm_up(members, p, topic, 2)
    received: dict[int, list[str]] = {i: [] for i in range(3)}
    stop = threading.Event()

    def read(i: int) -> None:  # each member on its own thread, as applications run them
        while not stop.is_set():
            received[i] += values(members[i].poll(0.2))

    threads = [threading.Thread(target=read, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    sent: list[str] = []
    try:
        def caught_up(lag: int) -> bool:
            return sum(map(len, received.values())) >= len(sent) - lag

        for burst in range(60):  # in bursts, so each member's long poll gets its turn
            batch = [f"r-{burst}-{i}" for i in range(6)]
            produce(p, topic, batch, 2)
            sent += batch
            wait_until(lambda: caught_up(12), timeout=30, message="the members to keep up")
        wait_until(lambda: caught_up(0), timeout=30, message="every record")
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)
        for member in members:
            member.close()
    delivered = [v for got in received.values() for v in got]
    assert sorted(delivered) == sorted(sent), "each record delivered exactly once while acknowledged"
    assert all(received.values()), {i: len(got) for i, got in received.items()}
    accepted = _scraped(broker,
                        'kafka_server_sharegroupmetrics_recordacknowledgements_total{ackType="Accept"}')
    assert accepted >= len(sent), "the broker counts what the members accepted (docs/observability.md)"


def _scraped(broker: BrokerProcess, series: str) -> float:
    """One series of the broker's /metrics (its address is in the `observability` line of its log)."""
    url = re.search(r"metrics=(http://\S+/metrics)", broker.output()).group(1)
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(series + " "))


def test_a_group_set_to_earliest_reads_what_was_produced_before_it_started(broker):
    """share.auto.offset.reset=earliest, set on the group with confluent-kafka's AdminClient before any
    member came (a group that does not exist yet may have configs): its share partitions start at the
    log's start, so the records produced before are delivered; DescribeConfigs shows the group's own
    value (GROUP_CONFIG) over the default."""
    topic, group = unique_topic("backlog"), f"g-{uuid.uuid4()}"
    create_topic(broker.bootstrap, topic, 2)
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    earliest = ConfigEntry("share.auto.offset.reset", "earliest", incremental_operation=AlterConfigOpType.SET)
    for done in admin.incremental_alter_configs([ConfigResource(ResourceType.GROUP, group,
                                                                incremental_configs=[earliest])]).values():
        assert done.result(10) is None
    described, = admin.describe_configs([ConfigResource(ResourceType.GROUP, group)]).values()
    entry = described.result(10)["share.auto.offset.reset"]
    assert (entry.value, entry.source) == ("earliest", ConfigSource.GROUP_CONFIG.value)
    backlog = [f"before-{i}" for i in range(10)]
    produce(producer(broker.bootstrap), topic, backlog, 2)
    member, got = Member(broker.bootstrap, group, topic), []
    try:
        wait_until(lambda: got.extend(member.poll()) or len(got) >= len(backlog), timeout=60,
                   message="the records produced before the group started")
    finally:
        member.close()
    assert sorted(values(got)) == sorted(backlog)


def test_a_member_that_closes_without_acknowledging_releases_its_records_to_the_others(broker):
    topic, group = unique_topic("released"), f"g-{uuid.uuid4()}"
    create_topic(broker.bootstrap, topic, 1)
    first = Member(broker.bootstrap, group, topic, explicit=True)
    p = producer(broker.bootstrap)
    warm_up([first], p, topic, 1)
    sent = [f"r-{i}" for i in range(10)]
    produce(p, topic, sent, 1)
    held: list = []
    wait_until(lambda: held.extend(first.poll()) or held, timeout=30, message="the first member to acquire")
    first.close()  # nothing acknowledged: its share session ends and the broker releases what it held

    second = Member(broker.bootstrap, group, topic, explicit=True)
    try:
        again: list = []
        wait_until(lambda: again.extend(second.poll(ack=AcknowledgeType.ACCEPT)) or len(again) >= len(sent),
                   timeout=60, message="the released records to reach the second member")
        assert sorted(values(again)) == sorted(sent)
        counts = {m.value().decode(): m.delivery_count() for m in again}
        assert {v: counts[v] for v in values(held)} == {v: 2 for v in values(held)}, "delivered once before"
        assert {counts[v] for v in sent if v not in values(held)} <= {1}
    finally:
        second.close()


def test_a_released_record_comes_back_and_a_rejected_one_never_does(broker):
    topic, group = unique_topic("acks"), f"g-{uuid.uuid4()}"
    create_topic(broker.bootstrap, topic, 1)
    member = Member(broker.bootstrap, group, topic, explicit=True)
    p = producer(broker.bootstrap)
    try:
        warm_up([member], p, topic, 1)
        produce(p, topic, ["release-me", "reject-me", "accept-me"], 1)
        deliveries: list[tuple[str, int]] = []
        kinds = {"release-me": AcknowledgeType.RELEASE, "reject-me": AcknowledgeType.REJECT,
                 "accept-me": AcknowledgeType.ACCEPT}

        def released_one_came_back() -> bool:
            for m in member.poll():
                value = m.value().decode()
                deliveries.append((value, m.delivery_count()))
                # released once only: the second time it is accepted
                again = m.delivery_count() > 1
                member.consumer.acknowledge(m, AcknowledgeType.ACCEPT if again else kinds[value])
            return ("release-me", 2) in deliveries
        wait_until(released_one_came_back, timeout=30, message="the released record to be delivered again")
        produce(p, topic, ["last"], 1)  # the rejected record is archived: the next one comes, and only it
        later: list = []
        wait_until(lambda: later.extend(member.poll(ack=AcknowledgeType.ACCEPT)) or "last" in values(later),
                   timeout=30, message="the next record")
        assert sorted(deliveries) == [("accept-me", 1), ("reject-me", 1), ("release-me", 1),
                                      ("release-me", 2)]
        assert values(later) == ["last"]
    finally:
        member.close()


def test_a_record_released_delivery_count_limit_times_is_archived(broker):
    topic, group = unique_topic("poison"), f"g-{uuid.uuid4()}"
    create_topic(broker.bootstrap, topic, 1)
    member = Member(broker.bootstrap, group, topic, explicit=True)
    p = producer(broker.bootstrap)
    try:
        warm_up([member], p, topic, 1)
        produce(p, topic, ["poison"], 1)
        counts: list[int] = []
        # released every time: after group.share.delivery.count.limit deliveries the broker archives it
        wait_until(lambda: counts.extend(m.delivery_count() for m in member.poll(ack=AcknowledgeType.RELEASE))
                   or len(counts) >= DELIVERY_COUNT_LIMIT, timeout=30,
                   message=f"{DELIVERY_COUNT_LIMIT} deliveries")
        produce(p, topic, ["after"], 1)
        later: list = []
        wait_until(lambda: later.extend(member.poll(ack=AcknowledgeType.ACCEPT)) or "after" in values(later),
                   timeout=30, message="the next record")
        assert counts == list(range(1, DELIVERY_COUNT_LIMIT + 1))
        assert values(later) == ["after"], "the archived record is never delivered again"
    finally:
        member.close()


def test_a_record_whose_lock_keeps_expiring_is_archived(tmp_path):
    settings = {**SHARE_SETTINGS, "group.share.record.lock.duration.ms": "1000",
                "group.share.min.record.lock.duration.ms": "1000"}
    broker = BrokerProcess(tmp_path / "data", settings)
    topic, group = unique_topic("stuck"), f"g-{uuid.uuid4()}"
    members: list[Member] = []
    try:
        create_topic(broker.bootstrap, topic, 1)
        p = producer(broker.bootstrap)
        members.append(Member(broker.bootstrap, group, topic, explicit=True))
        warm_up(members, p, topic, 1)
        produce(p, topic, ["stuck"], 1)
        # Each member takes the record and never acknowledges it (so it may not poll again): after a second
        # its lock expires and the next member gets it, one delivery more each time.
        counts: list[int] = []
        while len(counts) < DELIVERY_COUNT_LIMIT:
            counts += [m.delivery_count() for m in wait_until(members[-1].poll, timeout=30,
                                                              message=f"delivery {len(counts) + 1}")]
            members.append(Member(broker.bootstrap, group, topic, explicit=True))
        assert counts == list(range(1, DELIVERY_COUNT_LIMIT + 1))
        produce(p, topic, ["after"], 1)
        later: list = []
        last = members[-1]
        wait_until(lambda: later.extend(last.poll(ack=AcknowledgeType.ACCEPT)) or "after" in values(later),
                   timeout=30, message="the next record")
        assert values(later) == ["after"], "archived once its last lock expired"
    finally:
        for member in members:
            member.close()
        broker.stop()


def test_acknowledged_records_stay_acknowledged_after_a_restart(tmp_path):
    broker = BrokerProcess(tmp_path / "data", SHARE_SETTINGS)
    topic, group = unique_topic("durable"), f"g-{uuid.uuid4()}"
    try:
        create_topic(broker.bootstrap, topic, 1)
        member = Member(broker.bootstrap, group, topic)
        p = producer(broker.bootstrap)
        warm_up([member], p, topic, 1)
        produce(p, topic, [f"acked-{i}" for i in range(20)], 1)
        got: list = []
        wait_until(lambda: got.extend(member.poll()) or len(got) >= 20, timeout=30, message="twenty records")
        member.consumer.commit_sync(10)  # implicit mode: what the last poll returned is accepted now
        member.close()
        later = [f"later-{i}" for i in range(10)]
        produce(p, topic, later, 1)  # never delivered before the restart
        broker.stop()
        broker = BrokerProcess(tmp_path / "data", SHARE_SETTINGS, port=broker.port)

        member = Member(broker.bootstrap, group, topic)
        after: list = []
        wait_until(lambda: after.extend(member.poll()) or len(after) >= len(later), timeout=60,
                   message="the records produced before the restart")
        produce(producer(broker.bootstrap), topic, ["new"], 1)
        wait_until(lambda: after.extend(member.poll()) or "new" in values(after), timeout=30,
                   message="a new one")
        member.close()
        assert sorted(values(after)) == sorted([*later, "new"]), \
            "the share partition resumed where the share coordinator's state says, not at the log's end"
    finally:
        broker.stop()


def test_list_groups_says_share_and_delete_groups_deletes_the_share_state(broker):
    topic, group = unique_topic("listed"), f"g-{uuid.uuid4()}"
    create_topic(broker.bootstrap, topic, 1)
    member = Member(broker.bootstrap, group, topic)
    warm_up([member], producer(broker.bootstrap), topic, 1)
    client = WireClient(broker.port)
    try:
        listed = client.request(ApiKey.LIST_GROUPS, 5, {"states_filter": [], "types_filter": ["share"]})
        listed_groups = [(g.group_id, g.group_type, g.group_state) for g in listed.groups]
        assert (group, "share", "Stable") in listed_groups
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        with pytest.raises(Exception, match="NON_EMPTY_GROUP"):
            admin.delete_consumer_groups([group])[group].result(10)
        member.close()
        wait_until(lambda: described(client, group).group_state == "Empty", message="the group to be empty")
        topic_id = client.request(ApiKey.METADATA, 12, {"topics": [{"name": topic}]}).topics[0].topic_id
        assert state_summary(client, group, topic_id).start_offset >= 0, "the share coordinator has it"
        admin.delete_consumer_groups([group])[group].result(10)
        assert described(client, group).error_code == Errors.GROUP_ID_NOT_FOUND
        assert state_summary(client, group, topic_id).start_offset == -1, "deleted through the persister"
    finally:
        client.close()


def described(client: WireClient, group: str):
    answer = client.request(ApiKey.SHARE_GROUP_DESCRIBE, 1, {"group_ids": [group],
                                                             "include_authorized_operations": False})
    return answer.groups[0]


def state_summary(client: WireClient, group: str, topic_id):
    """ReadShareGroupStateSummary of partition 0, as a broker's persister asks (one broker: it is the
    share coordinator of every key)."""
    answer = client.request(ApiKey.READ_SHARE_GROUP_STATE_SUMMARY, 1, {"group_id": group, "topics": [
        {"topic_id": topic_id, "partitions": [{"partition": 0, "leader_epoch": 0}]}]})
    partition = answer.results[0].partitions[0]
    assert partition.error_code == Errors.NONE, partition
    return partition


def test_a_cluster_formatted_with_share_version_0_refuses_share_groups(broker, tmp_path):
    """As Kafka 4.4: the share APIs are advertised whatever share.version is, and answer UNSUPPORTED_VERSION
    while it is 0; a cluster starts at 2 unless `kafka-storage format --feature share.version=0` says so."""
    data = tmp_path / "data"
    config = tmp_path / "server.properties"
    config.write_text(f"node.id=1\nlog.dirs={data}\n")
    formatted = subprocess.run([sys.executable, "-m", "kafka.tools.storage_tool", "format", "-t",
                                "aaaaaaaaaaaaaaaaaaaaaa", "-c", str(config), "--feature", "share.version=0"],
                               capture_output=True, text=True, cwd=REPO, timeout=60)
    assert formatted.returncode == 0, formatted.stderr
    off = BrokerProcess(data, SHARE_SETTINGS)
    try:
        for port, level in ((broker.port, 2), (off.port, None)):
            client = WireClient(port)
            try:
                versions = client.request(ApiKey.API_VERSIONS, 3, {"client_software_name": "test",
                                                                   "client_software_version": "1"})
                finalized = {f.name: f.max_version_level for f in versions.finalized_features}
                assert finalized.get("share.version") == level
                advertised = {a.api_key for a in versions.api_keys}
                assert {ApiKey.SHARE_GROUP_HEARTBEAT, ApiKey.SHARE_FETCH} <= advertised
                joined = client.request(ApiKey.SHARE_GROUP_HEARTBEAT, 1, {
                    "group_id": "g", "member_id": "m-1", "member_epoch": 0, "rack_id": None,
                    "subscribed_topic_names": ["t"]})
                # (on: NOT_COORDINATOR or NONE, as __consumer_offsets exists or not yet)
                assert (joined.error_code == Errors.UNSUPPORTED_VERSION) == (level is None), joined
            finally:
                client.close()
    finally:
        off.stop()


HOLDING_MEMBER = """
import sys
from confluent_kafka import ShareConsumer
member = ShareConsumer({"bootstrap.servers": sys.argv[1], "group.id": sys.argv[2],
                        "share.acknowledgement.mode": "explicit"})
member.subscribe([sys.argv[3]])
held = []
while not held:
    for m in member.poll(0.3):
        if m.value() == b"warm-up":
            member.acknowledge(m)
        elif m.error() is None:
            held.append(m)
print(" ".join(m.value().decode() for m in held), flush=True)
sys.stdin.read()  # holds them, unacknowledged, until killed
"""


def test_a_member_whose_connection_drops_releases_its_records_at_once(broker):
    """The share session ends with its connection (the network layer tells the share session cache): a
    member killed while it holds records frees them for the others long before their locks (30 s) expire."""
    topic, group = unique_topic("dropped"), f"g-{uuid.uuid4()}"
    create_topic(broker.bootstrap, topic, 1)
    p = producer(broker.bootstrap)
    first = Member(broker.bootstrap, group, topic)
    warm_up([first], p, topic, 1)
    first.close()
    holder = subprocess.Popen([sys.executable, "-c", HOLDING_MEMBER, broker.bootstrap, group, topic],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        sent = [f"r-{i}" for i in range(10)]
        produce(p, topic, sent, 1)
        held = holder.stdout.readline().split()
        assert held and set(held) <= set(sent), held
    finally:
        holder.kill()
        holder.wait(10)
    started = time.monotonic()
    second = Member(broker.bootstrap, group, topic)
    try:
        got: list = []
        wait_until(lambda: got.extend(second.poll()) or len(got) >= len(sent), timeout=20,
                   message="the dead member's records")
        assert sorted(values(got)) == sorted(sent)
        assert time.monotonic() - started < 20, "released when the connection closed, not by the locks"
    finally:
        second.close()
