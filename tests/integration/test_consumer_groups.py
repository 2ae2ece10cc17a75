"""Acceptance: consumer groups with real clients (confluent-kafka, aiokafka) against the broker on
loopback -- rebalances, a killed member, committed offsets across a restart, static membership,
the cooperative-sticky assignor, and kafka-consumer-groups.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

from kafka.tools import consumer_groups
from tests.helpers import REPO, unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic

# Rebalances are slow by nature: no initial delay, a low minimum session timeout, fast heartbeats.
FAST_GROUPS = {"group.initial.rebalance.delay.ms": "0", "group.min.session.timeout.ms": "1000",
               "offsets.topic.num.partitions": "5"}


def consumer(bootstrap: str, group: str, **extra) -> Consumer:
    config = {"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
              "enable.auto.commit": False, "session.timeout.ms": 6000, "heartbeat.interval.ms": 200,
              "topic.metadata.refresh.interval.ms": 1000}
    config.update(extra)
    return Consumer(config)


def produce(bootstrap: str, topic: str, count: int, partitions: int, start: int = 0) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 1})
    for i in range(start, start + count):
        producer.produce(topic, value=str(i).encode(), partition=i % partitions)
    assert producer.flush(30) == 0


def assigned(c: Consumer) -> set[tuple[str, int]]:
    return {(tp.topic, tp.partition) for tp in c.assignment()}


class Tracker:
    """Polls several consumers round-robin, recording (partition, offset) of every record seen and
    committing after each poll (at-least-once: a rebalance may hand a partition over before the
    last commit, and the next owner reads those records again)."""

    def __init__(self) -> None:
        self.seen: dict[tuple[int, int], int] = {}
        self.failed_commits = 0

    def poll(self, consumers: list[Consumer]) -> None:
        for c in consumers:
            messages = c.consume(num_messages=500, timeout=0.05)
            for m in messages:
                assert m.error() is None, m.error()
                key = (m.partition(), m.offset())
                self.seen[key] = self.seen.get(key, 0) + 1
            if messages:
                try:
                    c.commit(asynchronous=False)
                except KafkaException:  # a rebalance took the partitions meanwhile: read again, not lost
                    self.failed_commits += 1

    def duplicates(self) -> int:
        return sum(n - 1 for n in self.seen.values())


def test_three_consumers_split_six_partitions_and_take_over_when_one_leaves(start_broker):
    broker = start_broker(overrides=FAST_GROUPS)
    topic, group = unique_topic("grp"), unique_topic("g")
    create_topic(broker.bootstrap, topic, 6)
    produce(broker.bootstrap, topic, 300, 6)
    members = [consumer(broker.bootstrap, group) for _ in range(3)]
    for c in members:
        c.subscribe([topic])
    tracker = Tracker()

    def balanced(cs, share):
        tracker.poll(cs)
        owned = [assigned(c) for c in cs]
        return all(len(o) == share for o in owned) and set().union(*owned) == {(topic, p) for p in range(6)}

    wait_until(lambda: balanced(members, 2), timeout=30, message="three members owning two partitions each")
    owned = [assigned(c) for c in members]
    assert sum(len(o) for o in owned) == 6 and len(set().union(*owned)) == 6  # disjoint and covering

    members[2].close()  # LeaveGroup: the other two rebalance at once, no session timeout needed
    produce(broker.bootstrap, topic, 300, 6, start=300)
    survivors = members[:2]
    wait_until(lambda: balanced(survivors, 3), timeout=30, message="two members owning three partitions each")
    wait_until(lambda: tracker.poll(survivors) or len(tracker.seen) == 600, timeout=30,
               message="every record consumed")
    assert set(tracker.seen) == {(i % 6, i // 6) for i in range(600)}  # no gaps
    print(f"\nduplicates allowed by at-least-once: {tracker.duplicates()}, failed commits: "
          f"{tracker.failed_commits}")
    for c in survivors:
        c.close()


KILLABLE_CONSUMER = """
import sys
from confluent_kafka import Consumer
c = Consumer({"bootstrap.servers": sys.argv[1], "group.id": sys.argv[2], "session.timeout.ms": 2000,
              "heartbeat.interval.ms": 200, "auto.offset.reset": "earliest"})
c.subscribe([sys.argv[3]])
reported = None
while True:
    c.poll(0.1)
    mine = sorted(tp.partition for tp in c.assignment())
    if mine != reported:
        print("ASSIGNED", mine, flush=True)
        reported = mine
"""


def test_a_killed_consumer_is_removed_after_its_session_timeout(start_broker):
    broker = start_broker(overrides=FAST_GROUPS)
    topic, group = unique_topic("kill"), unique_topic("g")
    create_topic(broker.bootstrap, topic, 6)
    child = subprocess.Popen([sys.executable, "-c", KILLABLE_CONSUMER, broker.bootstrap, group, topic],
                             stdout=subprocess.PIPE, text=True, cwd=REPO)
    survivor = consumer(broker.bootstrap, group, **{"session.timeout.ms": 2000})
    try:
        wait_until(lambda: child.stdout.readline().startswith("ASSIGNED ["), timeout=20,
                   message="the child consumer to start")
        survivor.subscribe([topic])
        wait_until(lambda: survivor.poll(0.05) is None and len(assigned(survivor)) == 3, timeout=30,
                   message="the survivor to own half the partitions")
        killed_at = time.monotonic()
        os.kill(child.pid, signal.SIGKILL)  # no LeaveGroup: only the missing heartbeats tell
        wait_until(lambda: survivor.poll(0.05) is None and len(assigned(survivor)) == 6, timeout=30,
                   message="the survivor to take over every partition")
        took = time.monotonic() - killed_at
        # Removed by the session timeout (2 s, less at most one heartbeat interval), not sooner.
        assert took >= 1.5, f"took over after {took:.2f}s, before the session timeout could expire"
    finally:
        child.kill()
        child.wait(10)
        survivor.close()


def test_committed_offsets_and_metadata_survive_a_broker_restart(start_broker, tmp_path):
    data = tmp_path / "restart"
    broker = start_broker(data, FAST_GROUPS)
    topic, group = unique_topic("keep"), unique_topic("g")
    create_topic(broker.bootstrap, topic, 2)
    produce(broker.bootstrap, topic, 20, 2)
    first = consumer(broker.bootstrap, group)
    first.subscribe([topic])
    wait_until(lambda: first.poll(0.05) is None and len(assigned(first)) == 2, message="the assignment")
    first.commit(offsets=[TopicPartition(topic, 0, 4, metadata="checkpoint-a"),
                          TopicPartition(topic, 1, 7, metadata="checkpoint-b")], asynchronous=False)
    first.close()
    broker.stop()

    broker = start_broker(data, FAST_GROUPS)
    second = consumer(broker.bootstrap, group)
    try:
        committed = second.committed([TopicPartition(topic, 0), TopicPartition(topic, 1)], timeout=20)
        assert [(tp.offset, tp.metadata) for tp in committed] == [(4, "checkpoint-a"), (7, "checkpoint-b")]
        second.subscribe([topic])
        firsts: dict[int, int] = {}

        def resumed():
            m = second.poll(0.1)
            if m is not None and m.error() is None:
                firsts.setdefault(m.partition(), m.offset())
            return len(firsts) == 2

        wait_until(resumed, timeout=30, message="records from both partitions")
        assert firsts == {0: 4, 1: 7}  # it resumed exactly where the group had committed
    finally:
        second.close()


def test_cooperative_sticky_assignor(start_broker):
    broker = start_broker(overrides=FAST_GROUPS)
    topic, group = unique_topic("coop"), unique_topic("g")
    create_topic(broker.bootstrap, topic, 6)
    members = [consumer(broker.bootstrap, group, **{"partition.assignment.strategy": "cooperative-sticky"})
               for _ in range(2)]
    for c in members:
        c.subscribe([topic])

    def owned(cs):
        for c in cs:
            c.poll(0.05)
        return [assigned(c) for c in cs]

    wait_until(lambda: [len(o) for o in owned(members)] == [3, 3], timeout=30, message="a 3/3 split")
    before = owned(members)
    assert before[0].isdisjoint(before[1])
    members[1].close()
    wait_until(lambda: len(owned(members[:1])[0]) == 6, timeout=30, message="the survivor to own all six")
    assert before[0] <= assigned(members[0])  # sticky: it kept what it had
    members[0].close()


def test_static_member_gets_its_partitions_back_without_a_rebalance(start_broker):
    broker = start_broker(overrides=FAST_GROUPS)
    topic, group = unique_topic("static"), unique_topic("g")
    create_topic(broker.bootstrap, topic, 4)
    revoked = []
    a = consumer(broker.bootstrap, group, **{"group.instance.id": "instance-a"})
    b = consumer(broker.bootstrap, group, **{"group.instance.id": "instance-b"})
    a.subscribe([topic])
    b.subscribe([topic], on_revoke=lambda c, parts: revoked.extend(parts))
    wait_until(lambda: [c.poll(0.05) for c in (a, b)] and len(assigned(a)) == len(assigned(b)) == 2,
               timeout=30, message="a 2/2 split")
    a_partitions = assigned(a)
    # Forming the group may have revoked partitions already (if b joined first, it held all four
    # until a arrived); what must not happen is a revocation caused by a's restart.
    revoked.clear()
    a.close()  # a static member sends no LeaveGroup: its place is kept for its session
    a2 = consumer(broker.bootstrap, group, **{"group.instance.id": "instance-a"})
    a2.subscribe([topic])
    try:
        wait_until(lambda: [c.poll(0.05) for c in (a2, b)] and len(assigned(a2)) == 2, timeout=30,
                   message="the restarted static member's assignment")
        assert assigned(a2) == a_partitions
        assert revoked == []  # no rebalance: b never had to give anything up
    finally:
        a2.close()
        b.close()


def test_first_join_waits_the_initial_rebalance_delay_not_the_session_timeout(start_broker):
    broker = start_broker()  # group.initial.rebalance.delay.ms = 3000, offsets topic with 50 partitions
    topic, group = unique_topic("first"), unique_topic("g")
    create_topic(broker.bootstrap, topic, 1)
    c = consumer(broker.bootstrap, group, **{"session.timeout.ms": 45000, "heartbeat.interval.ms": 3000})
    started = time.monotonic()
    c.subscribe([topic])
    try:
        wait_until(lambda: c.poll(0.05) is None and assigned(c), timeout=30, message="the first assignment")
        took = time.monotonic() - started
        assert 2.5 <= took < 45 / 2, f"first join took {took:.2f}s"
    finally:
        c.close()


def test_aiokafka_group_consumer_and_kafka_consumer_groups_lag(start_broker, capsys):
    from aiokafka import AIOKafkaConsumer

    broker = start_broker(overrides=FAST_GROUPS)
    topic, group = unique_topic("aio"), unique_topic("g")
    create_topic(broker.bootstrap, topic, 3)
    produce(broker.bootstrap, topic, 30, 3)

    async def consume_and_commit():
        c = AIOKafkaConsumer(topic, bootstrap_servers=broker.bootstrap, group_id=group,
                             auto_offset_reset="earliest", enable_auto_commit=False)
        await c.start()
        try:
            got = []
            while len(got) < 30:
                batch = await c.getmany(timeout_ms=1000)
                got += [m for msgs in batch.values() for m in msgs]
            await c.commit()
            return len(got)
        finally:
            await c.stop()

    assert asyncio.run(asyncio.wait_for(consume_and_commit(), 60)) == 30
    produce(broker.bootstrap, topic, 12, 3, start=30)  # 4 more per partition: the lag
    capsys.readouterr()
    assert consumer_groups.main(["--bootstrap-server", broker.bootstrap, "--describe", "--group", group]) == 0
    out, err = capsys.readouterr()
    assert f"Consumer group '{group}' has no active members." in err  # on stderr, as Kafka's tool
    rows = [line.split() for line in out.splitlines() if line.startswith(group)]
    assert [(r[1], r[2], r[3], r[4], r[5]) for r in rows] == [(topic, str(p), "10", "14", "4")
                                                              for p in range(3)]

    assert consumer_groups.main(["--bootstrap-server", broker.bootstrap, "--list"]) == 0
    assert group in capsys.readouterr().out.split()

    assert consumer_groups.main(["--bootstrap-server", broker.bootstrap, "--reset-offsets", "--group", group,
                                 "--topic", topic, "--to-earliest", "--execute"]) == 0
    capsys.readouterr()
    consumer_groups.main(["--bootstrap-server", broker.bootstrap, "--describe", "--group", group])
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith(group)]
    assert [r[3] for r in rows] == ["0", "0", "0"] and [r[5] for r in rows] == ["14", "14", "14"]

    result = subprocess.run([str(REPO / ".venv" / "bin" / "kafka-consumer-groups"), "--bootstrap-server",
                             broker.bootstrap, "--delete", "--group", group], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr
    assert f"Deletion of requested consumer groups ('{group}') was successful." in result.stdout
    assert consumer_groups.main(["--bootstrap-server", broker.bootstrap, "--list"]) == 0
    assert group not in capsys.readouterr().out.split()
