"""How long does a group stop when a member joins? Three confluent-kafka consumers share a
12-partition topic while a producer writes to every partition; a fourth joins; for each of the
three we measure the longest gap between two records it received, and how long it held no
partition at all. Run with ``group.protocol=classic`` (the JoinGroup/SyncGroup barrier: everyone
gives everything back, the leader client assigns) and ``group.protocol=consumer`` (KIP-848: the
coordinator assigns, and only the partitions that move stop).

Lab 06 step 8 runs it against the broker you started::

    .venv/bin/python -m tests.labs.rebalance_pause --bootstrap-server 127.0.0.1:9092 --group-protocol classic
    .venv/bin/python -m tests.labs.rebalance_pause --bootstrap-server 127.0.0.1:9092 --group-protocol consumer

tests/integration/test_consumer_group_protocol.py and the lab's check run it on a broker of their own.
"""

from __future__ import annotations

import argparse
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

PARTITIONS = 12


@dataclass
class Member:
    name: str
    consumer: Consumer
    records: list[float] = field(default_factory=list)  # when each record arrived (monotonic s)
    held: list[tuple[float, int]] = field(default_factory=list)  # (when, how many partitions), at each change
    owned: set = field(default_factory=set)
    stop: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                message = self.consumer.poll(0.05)
                now = time.monotonic()
                if message is not None and message.error() is None:
                    self.records.append(now)
        except BaseException as e:  # reported by measure()
            self.error = e
        finally:
            self.consumer.close()

    def on_assign(self, consumer, partitions) -> None:  # eager: everything; incremental: what is added
        self.owned |= {(p.topic, p.partition) for p in partitions}
        self.held.append((time.monotonic(), len(self.owned)))

    def on_revoke(self, consumer, partitions) -> None:  # eager: everything; incremental: what goes
        self.owned -= {(p.topic, p.partition) for p in partitions}
        self.held.append((time.monotonic(), len(self.owned)))

    def partitions(self) -> int:
        return self.held[-1][1] if self.held else 0

    def longest_gap_ms(self, since: float, until: float) -> float:
        times = [since] + [t for t in self.records if since <= t <= until] + [until]
        return max(b - a for a, b in zip(times, times[1:], strict=False)) * 1000

    def unassigned_ms(self, since: float, until: float) -> float:
        total, empty_since = 0.0, None
        for when, count in self.held + [(until, -1)]:
            if empty_since is not None and count != 0:
                total += max(0.0, when - max(empty_since, since))
                empty_since = None
            elif count == 0 and empty_since is None:
                empty_since = when
        return total * 1000


def consumer(bootstrap: str, group: str, protocol: str, name: str, topic: str) -> Member:
    config = {"bootstrap.servers": bootstrap, "group.id": group, "client.id": name,
              "group.protocol": protocol,
              "auto.offset.reset": "latest", "fetch.wait.max.ms": 100, "enable.auto.commit": False}
    if protocol == "classic":  # the consumer protocol takes these from the broker (group.consumer.*)
        config.update({"heartbeat.interval.ms": 1000, "session.timeout.ms": 10000})
    member = Member(name, Consumer(config))
    member.consumer.subscribe([topic], on_assign=member.on_assign, on_revoke=member.on_revoke,
                              on_lost=member.on_revoke)
    threading.Thread(target=member.run, name=f"pause-{name}", daemon=True).start()
    return member


def wait(condition, timeout: float, what: str, members: list[Member]) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        for m in members:
            if m.error is not None:
                raise m.error
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: {[(m.name, m.partitions()) for m in members]}")
        time.sleep(0.05)


def measure(bootstrap: str, protocol: str, timeout: float = 60.0,
            hold: Callable[[dict], None] | None = None) -> dict:
    """Three members, then a fourth: each of the three's longest gap without records and time without
    partitions from the fourth's start until everyone holds three. `hold(result)`, if given, runs while
    the four are still in the group (to describe it), before they leave."""
    topic, group = f"pause-{protocol}-{uuid.uuid4().hex[:6]}", f"pause-{protocol}-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(30)
    producing = threading.Event()
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})

    def produce() -> None:
        while not producing.is_set():
            for p in range(PARTITIONS):
                producer.produce(topic, b"x", partition=p)
            producer.poll(0)
            time.sleep(0.02)
        producer.flush(10)

    threading.Thread(target=produce, name="pause-producer", daemon=True).start()
    members = []
    for i in (1, 2, 3):  # a third of a heartbeat apart, as members started by hand are: not in step
        members.append(consumer(bootstrap, group, protocol, f"member-{i}", topic))
        time.sleep(0.33)
    everyone = list(members)
    try:
        wait(lambda: [m.partitions() for m in members] == [4, 4, 4] and all(
            m.records and m.records[-1] > time.monotonic() - 0.5 for m in members), timeout,
            "three members consuming four partitions each", members)
        joined = time.monotonic()
        everyone.append(consumer(bootstrap, group, protocol, "member-4", topic))
        wait(lambda: sorted(m.partitions() for m in everyone) == [3, 3, 3, 3] and all(
            m.records and m.records[-1] > joined for m in everyone), timeout, "four members with three each",
            everyone)
        settled = time.monotonic()
        time.sleep(0.3)  # a last poll's worth of records after the move
        until = time.monotonic()
        result = {"protocol": protocol, "group": group, "topic": topic,
                  "settle_ms": round((settled - joined) * 1000),
                "members": [{"name": m.name, "longest_gap_ms": round(m.longest_gap_ms(joined, until)),
                             "unassigned_ms": round(m.unassigned_ms(joined, until)),
                             "gave_up_everything": any(n == 0 for t, n in m.held if t >= joined)}
                            for m in members]}
        if hold is not None:
            hold(result)
        return result
    finally:
        producing.set()
        for m in everyone:
            m.stop.set()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-server", default="127.0.0.1:9092")
    parser.add_argument("--group-protocol", choices=("classic", "consumer"), default="consumer")
    parser.add_argument("--hold", action="store_true",
                        help="keep the four members in the group until Enter, to describe it")
    args = parser.parse_args(argv)
    measure(args.bootstrap_server, args.group_protocol, hold=lambda result: report(result, args.hold))


def report(result: dict, hold: bool) -> None:
    print(f"group.protocol={result['protocol']}, group {result['group']} on topic {result['topic']}: "
          f"the fourth member was in after {result['settle_ms']} ms")
    for m in result["members"]:
        print(f"  {m['name']}: longest gap without records {m['longest_gap_ms']} ms, "
              f"without partitions {m['unassigned_ms']} ms")
    if hold:
        input(f"the four members stay in {result['group']}; press Enter to let them leave\n")


if __name__ == "__main__":
    main()
