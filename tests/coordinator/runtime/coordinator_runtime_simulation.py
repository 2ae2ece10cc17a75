"""A seeded, deterministic simulation of the coordinator runtime (KIP-848's runtime, Kafka's
CoordinatorRuntime) over two simulated partitions, checked after every step.

What is real: the CoordinatorRuntime, its contexts, events, deferred queues and timers, the
CoordinatorLoaderImpl, the SnapshotRegistry and TimelineHashMap, and the toy key-value shard
(tests/coordinator/runtime/key_value_shard.py: puts, deletes and a timer that expires a key). What is
simulated: each partition is an InMemoryPartitionWriter log whose high watermark this simulation moves;
the event processor is a ManualEventProcessor (events run when a step says so, partitions drawn by the
seed); the loader runs on a queue this simulation drains when a step says so; the clock is a MockTime.

The steps, drawn from one random.Random(seed):
  * requests: puts and deletes (writes), reads, writes that set a timer; each with its own timeout.
  * the processor runs one queued event; the loader runs one queued load.
  * the high watermark moves to a batch end between it and the log end.
  * the next append fails (KAFKA_STORAGE_ERROR, NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS).
  * the clock moves (timeouts, timers).
  * a leader change in the middle of writes: this broker stops leading (the partition drops its
    listeners, appends are refused, an unload is scheduled with the next epoch). The new leader either
    lacked the uncommitted tail (the log is cut to its high watermark) or had it (the tail stays and may
    commit later); it may write records of its own. Later this broker leads again, at a newer epoch, and
    loads the log as it is then, committed prefix and uncommitted tail alike.

The invariants, after every step, for each ACTIVE shard:
  (1) its committed view (every key read at its last committed offset) is a fresh replay of the log's
      records below that offset;
  (2) while this broker leads the epoch it was loaded for, its latest state is a fresh replay of the log
      up to its last written offset (what it wrote, and nothing a failed append took back);
  (3) no write's future succeeded before its record was in the log under the high watermark, at the
      offset it was replayed at;
  (4) no shard replayed an offset twice.
At the end, the faults stop, this broker leads, and time runs past every timeout: (5) every future has
completed, with success, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, REQUEST_TIMED_OUT or the append's
error, and each shard's state is the replay of its whole log.

A failure raises SimulationFailure naming the seed and step; COORDINATOR_RUNTIME_SIM_SEED=<seed> replays it.
"""

from __future__ import annotations

import random
from collections import deque

from kafka.coordinator.common.runtime.coordinator_error import CoordinatorError
from kafka.coordinator.common.runtime.coordinator_loader_impl import CoordinatorLoaderImpl
from kafka.coordinator.common.runtime.coordinator_runtime import CoordinatorRuntime
from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.coordinator_state import CoordinatorState
from kafka.coordinator.common.runtime.manual_event_processor import ManualEventProcessor
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from kafka.utils.time import MockTime
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.runtime.in_memory_partition_writer import InMemoryLog, InMemoryPartitionWriter
from tests.coordinator.runtime.key_value_shard import KeyValueSerde, KeyValueShard
from tests.coordinator.runtime.runtime_fixture import QueuedExecutor

PARTITIONS = [TopicPartition("__consumer_offsets", 0), TopicPartition("__consumer_offsets", 1)]
KEYS = ["a", "b", "c", "d", "e"]
APPEND_ERRORS = [Errors.KAFKA_STORAGE_ERROR, Errors.NOT_LEADER_OR_FOLLOWER, Errors.NOT_ENOUGH_REPLICAS]
ALLOWED_ERRORS = {Errors.NOT_COORDINATOR, Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.REQUEST_TIMED_OUT,
                  *APPEND_ERRORS}
DEFAULT_WRITE_TIMEOUT_MS = 2000


class SimulationFailure(AssertionError):
    pass


def replay(log: InMemoryLog, below: int) -> dict[str, str]:
    """The key-value state a fresh shard builds from the log's records below `below`."""
    state: dict[str, str] = {}
    for offset, key, value in log.records:
        if offset >= below:
            break
        if value is None:
            state.pop(key.decode(), None)
        else:
            state[key.decode()] = value.decode()
    return state


class CoordinatorRuntimeSimulation:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.step = 0
        self.events: deque[str] = deque(maxlen=25)
        self.time = MockTime()
        self.timer = SystemTimer("coordinator-sim", time=self.time)
        self.writer = InMemoryPartitionWriter()
        self.processor = ManualEventProcessor(random.Random(self.rng.random()))
        self.executor = QueuedExecutor(immediate=False)
        serde = KeyValueSerde()
        self.shards: list[KeyValueShard] = []
        self.runtime = CoordinatorRuntime(
            log_prefix=f"sim-{seed}", time=self.time, timer=self.timer, processor=self.processor,
            partition_writer=self.writer,
            loader=CoordinatorLoaderImpl(self.writer.read_partition_log, serde, self.time,
                                         load_buffer_size=200,
                                         executor=self.executor),
            coordinator_shard_builder=self._build_shard, serde=serde,
            metrics=CoordinatorRuntimeMetrics(self.time),
            default_write_timeout_ms=DEFAULT_WRITE_TIMEOUT_MS)
        self.epoch = dict.fromkeys(PARTITIONS, 0)
        self.leading = dict.fromkeys(PARTITIONS, False)
        self.futures: list[tuple[str, object]] = []  # (what, future)
        self.writes = self.reads = self.leader_changes = self.committed_writes = 0
        # Broken invariants seen inside callbacks and operations, where raising would only fail a future
        # (or be swallowed by it): check() raises the first one.
        self.violations: list[str] = []
        for tp in PARTITIONS:
            self._become_leader(tp)

    def _build_shard(self, **kwargs) -> KeyValueShard:
        shard = KeyValueShard(**{k: v for k, v in kwargs.items() if k != "log_context"})
        self.shards.append(shard)
        return shard

    def fail(self, message: str) -> None:
        raise SimulationFailure(
            f"seed {self.seed}, step {self.step}: {message}\nlast events: {list(self.events)}\n"
            f"replay: COORDINATOR_RUNTIME_SIM_SEED={self.seed} .venv/bin/pytest -q "
            f"tests/coordinator/runtime/test_coordinator_runtime_simulation.py")

    # ------------------------------------------------------------------ the steps
    def run(self, steps: int) -> None:
        actions = [(self._write, 20), (self._read, 6), (self._set_timer, 4), (self._run_event, 40),
                   (self._run_load, 6), (self._commit, 12), (self._fail_next_append, 3),
                   (self._advance_time, 6),
                   (self._lose_leadership, 1), (self._regain_leadership, 3)]
        choices, weights = zip(*actions, strict=True)
        for self.step in range(steps):
            action = self.rng.choices(choices, weights)[0]
            action(self.rng.choice(PARTITIONS))
            self.check()

    def _track(self, what: str, future) -> None:
        self.futures.append((what, future))

    def _write(self, tp: TopicPartition) -> None:
        key = self.rng.choice(KEYS)
        value = None if self.rng.random() < 0.2 else str(self.rng.randrange(1000))
        timeout_ms = self.rng.choice([50, 500, DEFAULT_WRITE_TIMEOUT_MS])
        written: dict = {}

        def op(shard: KeyValueShard):
            # Where the record will go, for the check when the future answers (invariant 3).
            written["tp"], written["offset"] = tp, self.runtime.context(tp).coordinator.last_written_offset
            return shard.put(key, value)

        future = self.runtime.schedule_write_operation(f"put {key}={value}", tp, timeout_ms, op)
        future.add_done_callback(lambda f: self._check_write_answer(f, written, key, value))
        self._track(f"put {key}={value} on {tp}", future)
        self.writes += 1
        self.events.append(f"put {key}={value} on {tp.partition} (timeout {timeout_ms})")

    def _check_write_answer(self, future, written: dict, key: str, value: str | None) -> None:
        if future.cancelled() or future.exception() is not None:
            return
        log = self.writer.log(written["tp"])
        offset = written["offset"]
        record = next((r for r in log.records if r[0] == offset), None)
        expected = (key.encode(), None if value is None else value.encode())
        if log.high_watermark <= offset or record is None or record[1:] != expected:
            self.violations.append(f"put {key}={value} answered before its record committed: offset "
                                   f"{offset}, "
                      f"high watermark {log.high_watermark}, log has {record}")
        self.committed_writes += 1

    def _read(self, tp: TopicPartition) -> None:
        def op(shard: KeyValueShard, offset: int):
            expected = replay(self.writer.log(tp), offset)
            seen = dict(shard.data.items_at(offset))
            if seen != expected:
                self.violations.append(f"a read at committed offset {offset} of {tp} saw {seen}, the log "
                                       f"says {expected}")
            return seen

        self._track(f"read {tp}", self.runtime.schedule_read_operation("read", tp, op))
        self.reads += 1

    def _set_timer(self, tp: TopicPartition) -> None:
        key, delay_ms = self.rng.choice(KEYS), self.rng.choice([10, 100, 1000])
        retry = self.rng.random() < 0.5
        future = self.runtime.schedule_write_operation(
            f"expire {key}", tp, DEFAULT_WRITE_TIMEOUT_MS,
            lambda shard: shard.expire_later(key, delay_ms, retry))
        self._track(f"expire {key} in {delay_ms} ms on {tp}", future)
        self.events.append(f"timer expire {key} in {delay_ms} ms on {tp.partition}")

    def _run_event(self, tp: TopicPartition) -> None:
        self.processor.poll()

    def _run_load(self, tp: TopicPartition) -> None:
        if self.executor.run_next():
            self.events.append("a load ran")

    def _commit(self, tp: TopicPartition) -> None:
        log = self.writer.log(tp)
        ends = [end for end in log.batch_ends() if end > log.high_watermark]
        if ends:
            offset = self.rng.choice(ends)
            self.writer.commit(tp, offset)
            self.events.append(f"high watermark of {tp.partition} -> {offset}")

    def _fail_next_append(self, tp: TopicPartition) -> None:
        error = self.rng.choice(APPEND_ERRORS)
        self.writer.fail_next(error)
        self.events.append(f"next append fails with {error.name}")

    def _advance_time(self, tp: TopicPartition) -> None:
        ms = self.rng.choice([1, 10, 100, 1000])
        self.time.advance(ms)
        self.timer.advance_clock(0)
        self.events.append(f"time +{ms} ms")

    def _lose_leadership(self, tp: TopicPartition) -> None:
        if not self.leading[tp]:
            return
        self.leading[tp] = False
        self.writer.leading.discard(tp)
        # Partition.make_follower: its listeners hear on_failed and are dropped
        self.writer.listeners[tp] = []
        self.epoch[tp] += 1
        self.runtime.schedule_unload_operation(tp, self.epoch[tp])
        log = self.writer.log(tp)
        cut = self.rng.random() < 0.5
        if cut:
            log.truncate_to(log.high_watermark)  # the new leader lacked the uncommitted tail
        if self.rng.random() < 0.5:  # the new leader writes records of its own
            key = self.rng.choice(KEYS)
            batch = bytearray(build_batch([(key.encode(), b"foreign")]))
            from kafka.protocol.record_batch import set_base_offset
            set_base_offset(batch, 0, log.log_end_offset)
            log.add(bytes(batch))
        self.leader_changes += 1
        self.events.append(f"lost leadership of {tp.partition} (epoch {self.epoch[tp]}, tail cut: {cut})")

    def _regain_leadership(self, tp: TopicPartition) -> None:
        if not self.leading[tp]:
            self._become_leader(tp)

    def _become_leader(self, tp: TopicPartition) -> None:
        self.leading[tp] = True
        self.epoch[tp] += 1
        self.writer.leading.add(tp)
        self.runtime.schedule_load_operation(tp, self.epoch[tp])
        self.events.append(f"leader of {tp.partition} at epoch {self.epoch[tp]}")

    # ------------------------------------------------------------------ the invariants
    def check(self) -> None:
        if self.violations:
            self.fail(self.violations[0])
        for shard in self.shards:
            if shard.double_applied:
                self.fail(f"offsets {shard.double_applied} of {shard.tp} were replayed twice into one shard")
        for tp in PARTITIONS:
            context = self.runtime.context(tp)
            if context is None or context.state is not CoordinatorState.ACTIVE:
                continue
            coordinator, log = context.coordinator, self.writer.log(tp)
            shard = coordinator.coordinator
            committed = coordinator.last_committed_offset
            seen = dict(shard.data.items_at(committed))
            if seen != replay(log, committed):
                self.fail(f"{tp}: committed view at {committed} is {seen}, the log says "
                          f"{replay(log, committed)}")
            if self.leading[tp] and context.epoch == self.epoch[tp]:
                written = coordinator.last_written_offset
                if written != log.log_end_offset:
                    self.fail(f"{tp}: last written offset {written}, log end offset {log.log_end_offset}")
                if dict(shard.data) != replay(log, written):
                    self.fail(f"{tp}: latest state {dict(shard.data)}, the log says {replay(log, written)}")

    def finish(self) -> None:
        """Heal, then every future must be answered and every shard must be its log (invariant 5)."""
        self.writer.failures.clear()
        for tp in PARTITIONS:
            if not self.leading[tp]:
                self._become_leader(tp)
        for _ in range(50):
            self.processor.run_all()
            self.executor.run_all()
            for tp in PARTITIONS:
                self.writer.commit(tp)
            self.time.advance(DEFAULT_WRITE_TIMEOUT_MS)
            self.timer.advance_clock(0)
            self.check()
        for what, future in self.futures:
            if not future.done():
                self.fail(f"{what} never answered")
            error = future.exception()
            if error is not None and not (isinstance(error, CoordinatorError)
                                          and error.error in ALLOWED_ERRORS):
                self.fail(f"{what} failed with {error!r}")
        for tp in PARTITIONS:
            context = self.runtime.context(tp)
            if context is None or context.state is not CoordinatorState.ACTIVE:
                self.fail(f"{tp} is not active after healing: {context and context.state}")
            log = self.writer.log(tp)
            if dict(context.coordinator.coordinator.data) != replay(log, log.log_end_offset):
                self.fail(f"{tp}: after healing the shard is not its log")
        self.runtime.close()
