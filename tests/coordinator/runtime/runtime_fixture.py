"""A CoordinatorRuntime over the toy key-value shard and an InMemoryPartitionWriter, on MockTime, with the
in-thread DirectEventProcessor and a loader that runs when the test says (or at once): what the runtime's
unit tests build, as Kafka's CoordinatorRuntimeTest builds its runtime."""

from __future__ import annotations

from collections import deque
from concurrent.futures import Future

from kafka.coordinator.common.runtime.coordinator_loader_impl import CoordinatorLoaderImpl
from kafka.coordinator.common.runtime.coordinator_runtime import CoordinatorRuntime
from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.direct_event_processor import DirectEventProcessor
from kafka.utils.time import MockTime
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.runtime.in_memory_partition_writer import InMemoryPartitionWriter
from tests.coordinator.runtime.key_value_shard import KeyValueSerde, key_value_shard_builder

TP = TopicPartition("__consumer_offsets", 0)
WRITE_TIMEOUT_MS = 5000


class QueuedExecutor:
    """An Executor whose tasks run when run_next()/run_all() is called (or at once, with immediate)."""

    def __init__(self, immediate: bool = True) -> None:
        self.immediate = immediate
        self.tasks: deque = deque()

    def submit(self, fn, *args) -> Future:
        future: Future = Future()
        self.tasks.append((fn, args, future))
        if self.immediate:
            self.run_all()
        return future

    def run_next(self) -> bool:
        if not self.tasks:
            return False
        fn, args, future = self.tasks.popleft()
        future.set_result(fn(*args))
        return True

    def run_all(self) -> None:
        while self.run_next():
            pass

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        self.tasks.clear()


class RuntimeFixture:
    def __init__(self, immediate_load: bool = True, processor=None, max_message_bytes: int = 1 << 20) -> None:
        self.time = MockTime()
        self.timer = SystemTimer("coordinator-runtime", time=self.time)
        self.writer = InMemoryPartitionWriter(max_message_bytes)
        self.executor = QueuedExecutor(immediate_load)
        self.serde = KeyValueSerde()
        self.loader = CoordinatorLoaderImpl(self.writer.read_partition_log, self.serde, self.time,
                                            executor=self.executor)
        self.processor = processor if processor is not None else DirectEventProcessor()
        self.metrics = CoordinatorRuntimeMetrics(self.time)
        self.runtime = CoordinatorRuntime(
            log_prefix="test", time=self.time, timer=self.timer, processor=self.processor,
            partition_writer=self.writer, loader=self.loader,
            coordinator_shard_builder=key_value_shard_builder,
            serde=self.serde, metrics=self.metrics, default_write_timeout_ms=WRITE_TIMEOUT_MS)

    def lead(self, tp=TP, epoch: int = 0) -> None:
        self.writer.leading.add(tp)
        self.runtime.schedule_load_operation(tp, epoch)

    def shard(self, tp=TP):
        return self.runtime.context(tp).coordinator.coordinator

    def put(self, key, value, tp=TP, timeout_ms: int = WRITE_TIMEOUT_MS) -> Future:
        return self.runtime.schedule_write_operation(f"put-{key}", tp, timeout_ms,
                                                     lambda shard: shard.put(key, value))

    def read(self, key, tp=TP) -> Future:
        return self.runtime.schedule_read_operation(f"get-{key}", tp, lambda shard,
                                                    offset: shard.get(key, offset))

    def advance(self, ms: int) -> None:
        self.time.advance(ms)
        self.timer.advance_clock(0)
