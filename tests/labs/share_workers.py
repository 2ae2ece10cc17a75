"""Six workers and one topic of two partitions, read first as a consumer group and then as a share group
(KIP-932); then a poison record, released by every worker that gets it, and one that takes every worker
that gets it longer than its acquisition lock. The workers are confluent-kafka clients, each polled on
its own thread: Consumers with ``group.protocol=consumer`` for the consumer group, ShareConsumers for the
share group.

Lab 14 (docs/labs/14-share-groups.md) runs it against the broker you started::

    .venv/bin/python -m tests.labs.share_workers consumer-group --hold
    .venv/bin/python -m tests.labs.share_workers share-group --hold
    .venv/bin/python -m tests.labs.share_workers poison
    .venv/bin/python -m tests.labs.share_workers poison --reject
    .venv/bin/python -m tests.labs.share_workers slow

and the lab's check (tests/labs/test_lab_14_share_groups.py) runs the same functions on a broker of its own.

A share partition starts at the end of its log when the group first fetches it (share.auto.offset.reset
is `latest`, and this broker has no group configs to change it), so every share-group step first warms
the group up: it writes a "warm-up" record to each partition until some worker has read one from every
partition. Only the records written after that are the step's.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from confluent_kafka import AcknowledgeType, Consumer, Producer, ShareConsumer

from kafka.clients.admin import BROKER_RESOURCE, AdminClient, NewTopic
from kafka.protocol.errors import Errors
from kafka.utils.logging import configure_logging
from kafka.utils.topic_partition import TopicPartition

TOPIC = "lab14"
PARTITIONS = 2
WORKERS = 6
JOBS = 60
WORK_S = 0.05  # what one job takes a worker
WARM_UP, POISON = b"warm-up", b"poison"
TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Delivery:
    worker: str
    partition: int
    offset: int
    value: str
    delivery_count: int | None  # a share group's: which delivery of the record this is


@dataclass
class Worker:
    name: str
    deliveries: list[Delivery] = field(default_factory=list)
    owned: set[int] = field(default_factory=set)  # a consumer group member's partitions
    warmed: set[int] = field(default_factory=set)  # partitions a warm-up record came from
    working: bool = False  # on a job that takes longer than its lock
    stop: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None
    thread: threading.Thread | None = None

    def jobs(self) -> list[Delivery]:
        return [d for d in self.deliveries if d.value != WARM_UP.decode()]

    def start(self, loop: Callable[[], None]) -> None:
        def run() -> None:
            try:
                loop()
            except BaseException as e:  # raised again by wait_for
                self.error = e
        self.thread = threading.Thread(target=run, name=f"lab14-{self.name}", daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(15)


def wait_for(condition: Callable[[], object], what: str, workers: list[Worker],
             timeout: float = TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        for worker in workers:
            if worker.error is not None:
                raise worker.error
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:.0f} s for {what}")
        time.sleep(0.05)


def ensure_topic(admin: AdminClient, topic: str) -> None:
    error = admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic]
    if error is not None and error.error != Errors.TOPIC_ALREADY_EXISTS:
        raise error


def producer(bootstrap: str) -> Producer:
    return Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})


def produce_one_by_one(p: Producer, topic: str, values: list[bytes], partition: int | None = None) -> None:
    """Each record on its own, one partition after the other: a record is one batch, so one fetch
    acquires it and the next record goes to whichever worker fetches next."""
    for i, value in enumerate(values):
        p.produce(topic, value, partition=i % PARTITIONS if partition is None else partition)
        p.flush(10)
        time.sleep(0.02)


# ------------------------------------------------------------------ step 1: a consumer group

def consumer_group(bootstrap: str, topic: str = TOPIC, group: str = "lab14-consumers",
                   hold: Callable[[dict], None] | None = None) -> dict:
    """Six consumers in one consumer group on the two partitions; then JOBS records. {worker: (its
    partitions, the jobs it got)}. `hold(result)`, if given, runs while they are still in the group."""
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        ensure_topic(admin, topic)
        workers = [Worker(f"worker-{i}") for i in range(1, WORKERS + 1)]
        for worker in workers:
            worker.start(lambda w=worker: _consume(bootstrap, topic, group, w))
        try:
            wait_for(lambda: _group_settled(admin, group, workers), "the six members to settle", workers)
            p = producer(bootstrap)
            warm_up(p, topic, workers)  # each owner has found where its partition ends: no job is skipped
            produce_one_by_one(p, topic, [f"job-{i}".encode() for i in range(JOBS)])
            wait_for(lambda: sum(len(w.jobs()) for w in workers) >= JOBS, f"the {JOBS} jobs", workers)
            result = {w.name: (sorted(w.owned), len(w.jobs())) for w in workers}
            if hold is not None:
                hold(result)
            return result
        finally:
            for worker in workers:
                worker.close()


def _consume(bootstrap: str, topic: str, group: str, worker: Worker) -> None:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "client.id": worker.name,
                         "group.protocol": "consumer", "auto.offset.reset": "latest",
                         "auto.commit.interval.ms": 1000})

    def assigned(_, partitions) -> None:
        worker.owned |= {p.partition for p in partitions}

    def revoked(_, partitions) -> None:
        worker.owned -= {p.partition for p in partitions}

    consumer.subscribe([topic], on_assign=assigned, on_revoke=revoked, on_lost=revoked)
    try:
        while not worker.stop.is_set():
            message = consumer.poll(0.1)
            if message is not None and message.error() is None and not _note(worker, message):
                time.sleep(WORK_S)
    finally:
        consumer.close()


def _group_settled(admin: AdminClient, group: str, workers: list[Worker]) -> bool:
    """Every member in, at the group's target assignment, and each partition consumed by its owner."""
    try:
        described = admin.describe_consumer_groups([group])[group]
    except Exception:  # noqa: BLE001  (the group is not there yet)
        return False
    members, epoch = described.members, described.target_assignment_epoch
    at_target = all(m.member_epoch == epoch and m.assignment == m.target_assignment for m in members)
    return (len(members) == WORKERS and at_target
            and sorted(len(w.owned) for w in workers) == [0] * (WORKERS - PARTITIONS) + [1] * PARTITIONS)


# ------------------------------------------------------------------ step 2: a share group

def share_group(bootstrap: str, topic: str = TOPIC, group: str = "lab14-share",
                hold: Callable[[dict], None] | None = None) -> dict:
    """Six share consumers in one share group on the same two partitions; then JOBS records. {worker:
    (the partitions it got jobs from, the jobs it got)}."""
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        ensure_topic(admin, topic)
        workers = [Worker(f"worker-{i}") for i in range(1, WORKERS + 1)]
        for worker in workers:
            worker.start(lambda w=worker: _share_consume(bootstrap, topic, group, w))
        try:
            p = producer(bootstrap)
            warm_up(p, topic, workers)
            wait_for(lambda: _share_group_settled(admin, group), "every member to read its partition",
                     workers)
            produce_one_by_one(p, topic, [f"job-{i}".encode() for i in range(JOBS)])
            wait_for(lambda: sum(len(w.jobs()) for w in workers) >= JOBS, f"the {JOBS} jobs", workers)
            result = {w.name: (sorted({d.partition for d in w.jobs()}), len(w.jobs())) for w in workers}
            if hold is not None:
                hold(result)
            return result
        finally:
            for worker in workers:
                worker.close()


def share_consumer(bootstrap: str, group: str, topic: str, worker: Worker, explicit: bool = False
                   ) -> ShareConsumer:
    consumer = ShareConsumer({"bootstrap.servers": bootstrap, "group.id": group, "client.id": worker.name,
                              "share.acknowledgement.mode": "explicit" if explicit else "implicit"})
    consumer.subscribe([topic])
    return consumer


def _share_consume(bootstrap: str, topic: str, group: str, worker: Worker) -> None:
    """Implicit acknowledgement: each poll accepts what the previous one returned."""
    consumer = share_consumer(bootstrap, group, topic, worker)
    try:
        while not worker.stop.is_set():
            for message in consumer.poll(0.2):
                if message.error() is not None:
                    continue
                if not _note(worker, message):
                    time.sleep(WORK_S)
    finally:
        consumer.close()


def _note(worker: Worker, message) -> bool:
    """Record a delivery; True for a warm-up record (no work to do)."""
    delivery = Delivery(worker.name, message.partition(), message.offset(), message.value().decode(),
                        message.delivery_count())  # None from a consumer group's Consumer
    worker.deliveries.append(delivery)
    if message.value() == WARM_UP:
        worker.warmed.add(message.partition())
        return True
    return False


def warm_up(p: Producer, topic: str, workers: list[Worker]) -> None:
    """Until some worker has read a warm-up record from every partition: from then on, every record
    written is delivered."""
    def every_partition_read() -> bool:
        produce_one_by_one(p, topic, [WARM_UP] * PARTITIONS)
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            if set().union(*(w.warmed for w in workers)) == set(range(PARTITIONS)):
                return True
            time.sleep(0.05)
        return False
    wait_for(every_partition_read, "the share group to start reading both partitions", workers)


def _share_group_settled(admin: AdminClient, group: str) -> bool:
    described = admin.describe_share_groups([group])[group]
    return (len(described.members) == WORKERS
            and all(m.assignment and m.member_epoch == described.target_assignment_epoch
                    for m in described.members))


# ------------------------------------------------------------------ step 3: a poison record, released

def broker_config(admin: AdminClient, name: str) -> str:
    """One of the broker's configs, as kafka-configs --describe --all shows it."""
    node = min(n.node_id for n in admin.describe_cluster()[2])
    return admin.describe_configs(BROKER_RESOURCE, str(node), [name])[name].value


def delivery_count_limit(admin: AdminClient) -> int:
    return int(broker_config(admin, "group.share.delivery.count.limit"))


def start_offset(admin: AdminClient, group: str, topic: str, partition: int) -> int:
    """The share-partition start offset, as kafka-share-groups --describe shows it (-1: not started)."""
    tp = TopicPartition(topic, partition)
    info = admin.list_share_group_offsets({group: [tp]})[group].get(tp)
    return -1 if info is None else info.start_offset


def poison(bootstrap: str, topic: str = TOPIC, group: str = "lab14-poison", reject: bool = False,
           report: Callable[[str], None] = print) -> dict:
    """Two workers in explicit acknowledgement mode. They accept every job, but a "poison" job fails
    every time it is processed: the worker hands it back (RELEASE) for another try, or, with `reject`,
    rejects it for good (REJECT). The deliveries of the poison job, and where the start offset ended."""
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        ensure_topic(admin, topic)
        limit = delivery_count_limit(admin)
        workers = [Worker(f"worker-{i}") for i in (1, 2)]
        ack = AcknowledgeType.REJECT if reject else AcknowledgeType.RELEASE
        for worker in workers:
            worker.start(lambda w=worker: _acknowledge_explicitly(bootstrap, topic, group, w, ack, report))
        try:
            p = producer(bootstrap)
            warm_up(p, topic, workers)
            produce_one_by_one(p, topic, [b"job-1", POISON, b"job-2"], partition=0)
            expected = 1 if reject else limit
            wait_for(lambda: len(_poison_deliveries(workers)) >= expected and _jobs_done(workers, "job-2"),
                     f"{expected} deliveries of the poison job", workers)
            # It is archived: a job written after it is the next record anyone gets from partition 0.
            produce_one_by_one(p, topic, [b"job-3"], partition=0)
            wait_for(lambda: _jobs_done(workers, "job-3"), "job-3", workers)
            deliveries = _poison_deliveries(workers)
            poisoned, last = deliveries[0].offset, _delivered(workers, "job-3").offset
            # Each write to the share coordinator carries the start offset as it was before that write's
            # change: accepting job-3, the last change, was written with job-3's offset.
            wait_for(lambda: start_offset(admin, group, topic, 0) >= last,
                     "the start offset to reach job-3", workers)
            times = "once" if len(deliveries) == 1 else f"{len(deliveries)} times"
            report(f"the poison job (offset {poisoned}) was delivered {times}; "
                   f"partition 0's start offset is now {start_offset(admin, group, topic, 0)}")
            return {"limit": limit, "poison_offset": poisoned, "deliveries": deliveries,
                    "start_offset": start_offset(admin, group, topic, 0)}
        finally:
            for worker in workers:
                worker.close()


def _acknowledge_explicitly(bootstrap: str, topic: str, group: str, worker: Worker, poison_ack,
                            report: Callable[[str], None]) -> None:
    consumer = share_consumer(bootstrap, group, topic, worker, explicit=True)
    try:
        while not worker.stop.is_set():
            for message in consumer.poll(0.2):
                if message.error() is not None:
                    continue
                warm = _note(worker, message)
                ack = poison_ack if message.value() == POISON else AcknowledgeType.ACCEPT
                consumer.acknowledge(message, ack)
                if not warm:
                    report(_line(worker.deliveries[-1], "processing failed: " + ack.name
                                 if message.value() == POISON else ack.name))
    finally:
        consumer.close()


def _line(d: Delivery, what: str) -> str:
    where = f"partition {d.partition} offset {d.offset:<4}"
    return f"{d.worker}  {d.value:<7} {where} delivery {d.delivery_count}  {what}"


def _poison_deliveries(workers: list[Worker]) -> list[Delivery]:
    every = [d for w in workers for d in w.deliveries if d.value == POISON.decode()]
    return sorted(every, key=lambda d: d.delivery_count)


def _jobs_done(workers: list[Worker], value: str) -> bool:
    return any(d.value == value for w in workers for d in w.deliveries)


def _delivered(workers: list[Worker], value: str) -> Delivery:
    return next(d for w in workers for d in w.deliveries if d.value == value)


# ------------------------------------------------------------------ step 4: a poison record, too slow

def record_lock_duration_s(admin: AdminClient) -> float:
    """The broker's group.share.record.lock.duration.ms, in seconds."""
    return int(broker_config(admin, "group.share.record.lock.duration.ms")) / 1000


def slow(bootstrap: str, topic: str = TOPIC, group: str = "lab14-slow",
         report: Callable[[str], None] = print, hold: Callable[[dict], None] | None = None,
         timeout: float | None = None) -> dict:
    """Six workers in implicit mode; the poison job takes whichever worker gets it longer to process
    than its acquisition lock lasts. Each time the lock runs out, another worker gets the record (the
    late worker's acceptance is refused); after the delivery count limit it is archived. `hold(result)`,
    if given, runs before the workers leave; `timeout` bounds the wait for the deliveries."""
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        ensure_topic(admin, topic)
        limit, lock_s = delivery_count_limit(admin), record_lock_duration_s(admin)
        workers = [Worker(f"worker-{i}") for i in range(1, WORKERS + 1)]
        poison_s = lock_s + 2  # always too slow
        for worker in workers:
            worker.start(lambda w=worker: _too_slow_for_poison(bootstrap, topic, group, w, poison_s, report))
        try:
            p = producer(bootstrap)
            warm_up(p, topic, workers)
            started = time.monotonic()
            produce_one_by_one(p, topic, [POISON], partition=0)
            # Once the worker of the last delivery is done, that lock has run out too, and archived it.
            def last_lock_ran_out() -> bool:
                return len(_poison_deliveries(workers)) >= limit and not any(w.working for w in workers)
            wait_for(last_lock_ran_out, f"{limit} deliveries of the poison job", workers,
                     timeout=timeout or TIMEOUT_S + limit * (lock_s + 5))
            took = time.monotonic() - started
            produce_one_by_one(p, topic, [b"job-4"], partition=0)
            wait_for(lambda: _jobs_done(workers, "job-4"), "job-4", workers)
            after = _delivered(workers, "job-4").offset
            wait_for(lambda: start_offset(admin, group, topic, 0) >= after, "the start offset to reach job-4",
                     workers)
            deliveries = _poison_deliveries(workers)
            now = start_offset(admin, group, topic, 0)
            report(f"the poison job (offset {deliveries[0].offset}) was delivered {len(deliveries)} times "
                   f"in {took:.0f} s; partition 0's start offset is now {now}")
            result = {"limit": limit, "lock_s": lock_s, "poison_offset": deliveries[0].offset,
                      "deliveries": deliveries, "seconds": took}
            if hold is not None:
                hold(result)
            return result
        finally:
            for worker in workers:
                worker.close()


def _too_slow_for_poison(bootstrap: str, topic: str, group: str, worker: Worker, poison_s: float,
                         report: Callable[[str], None]) -> None:
    """Implicit mode: the next poll accepts what this one returned, too late for the poison job."""
    consumer = share_consumer(bootstrap, group, topic, worker)
    try:
        while not worker.stop.is_set():
            for message in consumer.poll(0.2):
                if message.error() is not None or _note(worker, message):
                    continue
                if message.value() == POISON:
                    report(_line(worker.deliveries[-1], f"works on it for {poison_s:.0f} s"))
                    worker.working = True
                    worker.stop.wait(poison_s)
                    worker.working = False
                else:
                    report(_line(worker.deliveries[-1], "done"))
                    time.sleep(WORK_S)
    finally:
        consumer.close()


# ------------------------------------------------------------------ the command line

def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("consumer-group", "share-group", "poison", "slow"))
    parser.add_argument("--bootstrap-server", default="127.0.0.1:9092")
    parser.add_argument("--topic", default=TOPIC)
    parser.add_argument("--hold", action="store_true",
                        help="keep the six workers in their group until Enter, to describe it")
    parser.add_argument("--reject", action="store_true", help="poison: REJECT the poison job, not RELEASE it")
    parser.add_argument("--group",
                        help="poison: the share group (default lab14-poison, lab14-reject with --reject)")
    args = parser.parse_args(argv)
    configure_logging("console", logging.WARNING, sys.stderr)  # our AdminClient's lines, warnings only
    bootstrap, topic = args.bootstrap_server, args.topic
    if args.step == "consumer-group":
        consumer_group(bootstrap, topic, hold=lambda result: show(result, "consumer group", args.hold))
    elif args.step == "share-group":
        print("warming up: a share partition starts at the end of its log when the group first reads it")
        share_group(bootstrap, topic, hold=lambda result: show(result, "share group", args.hold))
    elif args.step == "poison":
        group = args.group or ("lab14-reject" if args.reject else "lab14-poison")
        poison(bootstrap, topic, group=group, reject=args.reject)
    else:
        slow(bootstrap, topic)


def show(result: dict, kind: str, hold: bool) -> None:
    print(f"{JOBS} jobs, {WORKERS} workers in one {kind}:")
    for name, (partitions, jobs) in result.items():
        print(f"  {name}: partitions {','.join(map(str, partitions)) or '-':<4} {jobs:>3} jobs")
    if hold:
        input(f"the workers stay in the {kind}; press Enter to let them leave\n")


if __name__ == "__main__":
    main()
