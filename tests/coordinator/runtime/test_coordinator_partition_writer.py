"""CoordinatorPartitionWriter and CoordinatorLoaderImpl over a real ReplicaManager and log on a temporary
directory (Kafka's CoordinatorPartitionWriterTest and CoordinatorLoaderImplTest): the runtime's appends
reach the log as AppendOrigin.COORDINATOR batches, the Partition tells the listener its high watermark,
and a new runtime loads the shard back from the log, transaction markers included."""

from __future__ import annotations

from kafka.coordinator.common.runtime.coordinator_loader_impl import CoordinatorLoaderImpl
from kafka.coordinator.common.runtime.coordinator_partition_writer import CoordinatorPartitionWriter
from kafka.coordinator.common.runtime.coordinator_runtime import CoordinatorRuntime
from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.coordinator.common.runtime.direct_event_processor import DirectEventProcessor
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.server.metadata_cache import PartitionState
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.runtime.key_value_shard import KeyValueSerde, key_value_shard_builder
from tests.coordinator.runtime.runtime_fixture import QueuedExecutor

TP = TopicPartition("__consumer_offsets", 0)


def runtime_over(replica_manager, time) -> CoordinatorRuntime:
    serde = KeyValueSerde()
    return CoordinatorRuntime(
        log_prefix="test", time=time, timer=SystemTimer("coordinator", time=time),
        processor=DirectEventProcessor(),
        partition_writer=CoordinatorPartitionWriter(replica_manager),
        loader=CoordinatorLoaderImpl(replica_manager.read_partition_log, serde, time,
                                     executor=QueuedExecutor()),
        coordinator_shard_builder=key_value_shard_builder, serde=serde,
        metrics=CoordinatorRuntimeMetrics(time),
        default_write_timeout_ms=5000)


def test_an_append_reaches_the_log_and_the_listener_hears_the_high_watermark(replica_manager):
    writer = CoordinatorPartitionWriter(replica_manager)
    heard = []
    writer.register_listener(TP, lambda tp, offset: heard.append((tp, offset)))
    assert writer.append(TP, -1, -1, build_batch([(b"a", b"1"), (b"b", b"2")])) == 2
    assert heard == [(TP, 2)]  # one replica: the append commits at once
    assert writer.config(TP) == replica_manager.get_log_config(TP).max_message_bytes


def test_a_listener_is_dropped_once_the_partition_stops_leading(replica_manager):
    writer = CoordinatorPartitionWriter(replica_manager)
    heard = []
    listener = lambda tp, offset: heard.append(offset)  # noqa: E731
    writer.register_listener(TP, listener)
    writer.deregister_listener(TP, listener)  # a new adapter of the same callable removes the first
    writer.append(TP, -1, -1, build_batch([(b"a", b"1")]))
    assert heard == []
    writer.register_listener(TP, listener)
    replica_manager.make_follower(TP,
                                  PartitionState(0, leader=2, leader_epoch=1, replicas=(1, 2), isr=(1, 2)),
                                  replica_manager.get_log_config(TP))
    assert replica_manager.get_partition(TP).listeners == ()


def test_the_runtime_writes_through_the_replica_manager_and_a_new_runtime_loads_it_back(replica_manager,
                                                                                        time):
    runtime = runtime_over(replica_manager, time)
    runtime.schedule_load_operation(TP, 0)
    written = runtime.schedule_write_operation("put", TP, 1000, lambda shard: shard.put("a", "1"))
    assert written.result(0) is None  # committed: one replica
    txn = runtime.schedule_transactional_write_operation("txn", TP, "t", 42, 0, 1000,
                                                         lambda shard: shard.put("b", "2"))
    done = runtime.schedule_transaction_completion("end", TP, 42, 0, 5, TransactionResult.COMMIT, 1000)
    assert txn.done() and done.result(0) is None
    read = runtime.schedule_read_operation("get", TP, lambda shard, offset: dict(shard.data.items_at(offset)))
    assert read.result(0) == {"a": "1", "b": "2"}
    batches = list(iter_batches(replica_manager.read_partition_log(TP, 0, 1 << 20).records))
    assert [b.is_transactional for b in batches] == [False, True, True] and batches[-1].is_control_batch
    runtime.close()

    again = runtime_over(replica_manager, time)
    again.schedule_load_operation(TP, 1)
    read = again.schedule_read_operation("get", TP, lambda shard, offset: dict(shard.data.items_at(offset)))
    assert read.result(0) == {"a": "1", "b": "2"}
    assert again.context(TP).coordinator.last_committed_offset == 3
    again.close()
