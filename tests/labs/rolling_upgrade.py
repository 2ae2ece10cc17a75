"""A rolling upgrade of a consumer fleet, and back: two confluent-kafka consumers of one group start on
group.protocol=classic and are restarted one at a time on group.protocol=consumer, then one goes back
to classic and the last member of the new protocol leaves. They read and commit all the while; after
each step the tool prints the group's type as ListGroups says it (Kafka 4's
group.consumer.migration.policy=bidirectional converts the group online: docs/groups.md).

Lab 06 step 10 runs it against the broker you started::

    .venv/bin/python -m tests.labs.rolling_upgrade --bootstrap-server 127.0.0.1:9092

tests/integration/test_group_migration.py and the lab's check run it on a broker of their own.
"""

from __future__ import annotations

import argparse
import threading
import time
import uuid

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

PARTITIONS, BATCH = 3, 100


class Member:
    """One consumer process of the fleet: polls on its own thread, commits each record it reads.
    librdkafka's calls are made only from that thread; the test reads what it last saw."""

    def __init__(self, bootstrap: str, group: str, topic: str, protocol: str, seen: list[int]) -> None:
        config = {"bootstrap.servers": bootstrap, "group.id": group, "group.protocol": protocol,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False}
        if protocol == "classic":
            config.update({"session.timeout.ms": 6000, "heartbeat.interval.ms": 500})
        self.protocol = protocol
        self.consumer = Consumer(config)
        self.consumer.subscribe([topic])
        self.seen, self.stopping = seen, threading.Event()
        self.assigned = 0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stopping.is_set():
            message = self.consumer.poll(0.1)
            self.assigned = len(self.consumer.assignment())
            if message is None or message.error() is not None:
                continue
            self.seen.append(int(message.value()))
            try:
                self.consumer.commit(message, asynchronous=False)
            except Exception:  # noqa: BLE001 - a commit refused mid-rebalance: the next record commits past it
                pass

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(15)
        self.consumer.close()  # LeaveGroup, or the heartbeat with epoch -1


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)


def group_type(admin: AdminClient, group: str) -> str | None:
    """ListGroups' type of the group (KIP-848's GroupType), as kafka-consumer-groups --list --type
    shows it."""
    listed = admin.list_consumer_groups(request_timeout=10).result()
    kind = next((g.type for g in listed.valid if g.group_id == group), None)
    return None if kind is None else kind.name.lower()


def produce(bootstrap: str, topic: str, values: range) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    for v in values:
        producer.produce(topic, str(v).encode(), partition=v % PARTITIONS)
    assert producer.flush(10) == 0


def rolling_upgrade(bootstrap: str, say=print) -> dict:
    """Run the whole story; the group types seen after each step, what was read, what was committed."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topic, group = f"rolling-{uuid.uuid4().hex[:8]}", f"fleet-{uuid.uuid4().hex[:8]}"
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(15)
    seen: list[int] = []
    steps: list[tuple[str, str | None]] = []

    def step(name: str, written: int) -> None:
        produce(bootstrap, topic, range(written - BATCH, written))
        wait_for(lambda: len(set(seen)) >= written, 60, f"the fleet to read {written} records")
        wait_for(lambda: group_type(admin, group) is not None, 15, "the group to be listed")
        steps.append((name, group_type(admin, group)))
        say(f"{name:<55} group type: {steps[-1][1]}")

    a = Member(bootstrap, group, topic, "classic", seen)
    b = Member(bootstrap, group, topic, "classic", seen)
    step("two classic members", BATCH)
    b.stop()
    b = Member(bootstrap, group, topic, "consumer", seen)
    wait_for(lambda: group_type(admin, group) == "consumer", 30, "the upgrade")
    step("one restarted with group.protocol=consumer", 2 * BATCH)
    a.stop()
    a = Member(bootstrap, group, topic, "consumer", seen)
    step("both on group.protocol=consumer", 3 * BATCH)
    a.stop()
    a = Member(bootstrap, group, topic, "classic", seen)
    wait_for(lambda: a.assigned > 0, 30, "the classic member to get partitions")
    b.stop()
    wait_for(lambda: group_type(admin, group) == "classic", 30, "the downgrade")
    step("one back on classic, the other stopped", 4 * BATCH)
    a.stop()
    checker = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    partitions = [TopicPartition(topic, p) for p in range(PARTITIONS)]
    committed = [tp.offset for tp in checker.committed(partitions, timeout=10)]
    ends = [checker.get_watermark_offsets(tp, timeout=10)[1] for tp in partitions]
    checker.close()
    say(f"{len(set(seen))} of {4 * BATCH} records read ({len(seen) - len(set(seen))} twice); "
        f"committed {committed}, log ends {ends}")
    return dict(group=group, steps=steps, read=set(seen), records=4 * BATCH, committed=committed, ends=ends)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap-server", default="127.0.0.1:9092")
    args = parser.parse_args()
    result = rolling_upgrade(args.bootstrap_server)
    print(f"group id: {result['group']}")


if __name__ == "__main__":
    main()
