"""Acceptance: three consumer processes share a 6-partition topic through the group coordinator,
rebalance when one leaves, and a restarted member resumes from the committed offsets -- with no
record read twice across eager and cooperative rebalances. Each member's log is kept in the test's
tmp_path (memberN.log: stderr, memberN.log.out: stdout) for a failure's post-mortem."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time

import pytest

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.consumer import KafkaConsumer
from kafka.clients.producer import KafkaProducer
from kafka.protocol.api_keys import ApiKey
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import REPO, unique_topic, wait_until


class Member:
    def __init__(self, bootstrap: str, topic: str, group: str, strategy: str, log_path=None) -> None:
        self.log_path = log_path
        self._log = open(log_path, "w") if log_path else subprocess.DEVNULL
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.clients.group_member", bootstrap, topic, group, strategy],
            cwd=REPO, stdout=subprocess.PIPE, stderr=self._log, text=True)
        self.events: queue.Queue = queue.Queue()
        self.assigned: list[int] = []
        self.records: list[tuple[int, int]] = []
        self.closed = False
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        # the client's log lines go here too: keep them for a failure's report
        for line in self.process.stdout:
            self.output.append(line)
            if self.log_path:
                with open(str(self.log_path) + ".out", "a") as f:
                    f.write(line)
            if line.startswith("EVENT "):
                self.events.put(json.loads(line[len("EVENT "):]))

    def drain(self) -> None:
        while True:
            try:
                event = self.events.get_nowait()
            except queue.Empty:
                return
            if "assigned" in event:
                self.assigned = event["assigned"]
            if "revoked" in event:
                self.assigned = [p for p in self.assigned if p not in event["revoked"]]
            self.records += [tuple(r) for r in event.get("records", [])]
            self.closed |= event.get("closed", False)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(30)
        self.drain()


def _produce(bootstrap: str, topic: str, start: int, count: int) -> None:
    with KafkaProducer({"bootstrap.servers": bootstrap}) as producer:
        for i in range(start, start + count):
            producer.send(topic, f"v{i}", key=f"k{i}")
        producer.flush(30)


@pytest.mark.parametrize("strategy", ["cooperative-sticky", "range"])
def test_three_members_share_rebalance_and_resume(start_broker, strategy, tmp_path):
    broker = start_broker(overrides={"group.initial.rebalance.delay.ms": "0"})
    topic, group = unique_topic("grp"), unique_topic("g")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.create_topics([NewTopic(topic, 6, 1)])
    _produce(broker.bootstrap, topic, 0, 600)
    members = [Member(broker.bootstrap, topic, group, strategy, tmp_path / f"member{i}.log")
               for i in range(3)]
    try:
        def balanced(ms, share):
            for m in ms:
                m.drain()
            parts = sorted(p for m in ms for p in m.assigned)
            return parts == list(range(6)) and all(len(m.assigned) == share for m in ms)
        wait_until(lambda: balanced(members, 2), timeout=60, message="three members with two partitions each")
        wait_until(lambda: balanced(members, 2) and len({r for m in members for r in m.records}) == 600,
                   timeout=60, message="all 600 records consumed")
        members[2].stop()  # leaves the group: the other two take over its partitions
        assert members[2].closed
        wait_until(lambda: balanced(members[:2], 3), timeout=60,
                   message="two members with three partitions each")
        _produce(broker.bootstrap, topic, 600, 300)
        wait_until(lambda: balanced(members[:2], 3) and len({r for m in members for r in m.records}) == 900,
                   timeout=60, message="the next 300 records consumed by the two remaining members")
        everything = [r for m in members for r in m.records]
        # Each record is counted once: a member counts records only after committing them, and a
        # partition's new owner starts from that committed offset -- even when its OffsetFetch is
        # slower than poll()'s timeout (the cause of this test's old flakiness: it used to fall
        # back to auto.offset.reset=earliest and re-read the partition).
        replayed = sorted({r for r in everything if everything.count(r) > 1})
        assert not replayed, f"{len(replayed)} records read twice, e.g. {replayed[:5]}; logs in {tmp_path}"
        assert len(everything) == 900
    finally:
        for m in members:
            m.stop()
    _produce(broker.bootstrap, topic, 900, 60)
    restarted = Member(broker.bootstrap, topic, group, strategy)
    try:
        def resumed():
            restarted.drain()
            return len(restarted.records) >= 60

        wait_until(resumed, timeout=60, message="the restarted member to read the 60 new records")
        wait_until(lambda: restarted.drain() or len(restarted.assigned) == 6, timeout=30,
                   message="all partitions")
        assert len(restarted.records) == 60  # nothing before the committed offsets was read again
    finally:
        restarted.stop()


def test_a_slow_offset_fetch_never_resets_a_partition_to_auto_offset_reset(start_broker):
    """The cause of the flaky rebalance test: when the OffsetFetch for a newly assigned partition
    did not finish within poll()'s timeout (a loaded broker, or UNSTABLE_OFFSET_COMMIT while the
    previous owner's commit was still being written), the consumer fell back to auto.offset.reset
    and read the partition again from the beginning. Kafka's consumer waits for the committed
    offset over as many polls as it takes; poll(0) makes the slow fetch certain here."""
    broker = start_broker(overrides={"group.initial.rebalance.delay.ms": "0"})
    topic, group = unique_topic("slow"), unique_topic("g")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.create_topics([NewTopic(topic, 1, 1)])
    _produce(broker.bootstrap, topic, 0, 10)
    tp = TopicPartition(topic, 0)
    with KafkaConsumer({"bootstrap.servers": broker.bootstrap, "group.id": group}) as committer:
        committer.assign([tp])
        committer.commit({tp: 7})
    consumer = KafkaConsumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                              "auto.offset.reset": "earliest", "enable.auto.commit": False})
    try:
        consumer.subscribe([topic])
        # Join first, so that the poll(0)s below have nothing left to do but look up the position.
        assert consumer.coordinator.ensure_active_group(30000)
        records = wait_until(lambda: list(consumer.poll(0)), timeout=30, message="records from poll(0)")
        assert [r.offset for r in records] == [7, 8, 9]  # from the committed offset, not from 0
    finally:
        consumer.close()


def test_a_slow_list_offsets_still_gives_a_partition_its_position(broker):
    """The other face of the flaky rebalance test (a member that never read one partition): a
    partition awaiting auto.offset.reset got its position from a ListOffsets sent and waited for
    within one poll; slower than the poll, it was dropped and sent again on every poll, forever.
    Now the answer is applied whenever it arrives. The broker's ListOffsets handler is slowed
    down here to 300 ms, what a loaded broker does to it, against poll(100)."""
    topic = unique_topic("reset")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.create_topics([NewTopic(topic, 1, 1)])
    _produce(broker.bootstrap, topic, 0, 3)
    handlers = broker.server.apis.handlers
    real_list_offsets = handlers[ApiKey.LIST_OFFSETS]

    def loaded_broker_list_offsets(request):
        time.sleep(0.3)  # not a wait for anything: the time a busy I/O thread takes
        real_list_offsets(request)

    handlers[ApiKey.LIST_OFFSETS] = loaded_broker_list_offsets
    consumer = KafkaConsumer({"bootstrap.servers": broker.bootstrap, "auto.offset.reset": "earliest"})
    try:
        consumer.assign([TopicPartition(topic, 0)])
        records = wait_until(lambda: list(consumer.poll(100)), timeout=30, message="records from poll(100)")
        assert [r.offset for r in records] == [0, 1, 2]
    finally:
        consumer.close()


@pytest.mark.parametrize("group_id", [None, "positions"])
def test_position_right_after_seek_to_beginning_asks_the_leader(broker, group_id):
    """position() before any poll: the consumer knew no leader yet, asked for metadata, and then waited
    for a ListOffsets it never sent, until default.api.timeout.ms (the Spark demo tripped on it)."""
    topic = unique_topic("position")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.create_topics([NewTopic(topic, 1, 1)])
    _produce(broker.bootstrap, topic, 0, 5)
    config = {"bootstrap.servers": broker.bootstrap, "default.api.timeout.ms": 20_000}
    consumer = KafkaConsumer(config | ({"group.id": group_id} if group_id else {}))
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning([tp])
        assert consumer.position(tp) == 0
        consumer.seek_to_end([tp])
        assert consumer.position(tp) == 5
    finally:
        consumer.close()
