"""The coordinator runtime (Kafka 4's org.apache.kafka.coordinator.common.runtime, KIP-848's "new group
coordinator" framework): one replicated state machine (a CoordinatorShard) per partition of an internal
topic led by this broker, kept in timeline collections, changed only by replaying records, written
through the PartitionWriter and answered once those records commit.

    CoordinatorRuntime.schedule_write_operation(name, tp, timeout, op)
        -> EventAccumulator (one queue per partition) -> an event processor thread
        -> CoordinatorWriteEvent.run: op(shard) -> CoordinatorResult(records, response)
        -> replay the records into the shard, append them (PartitionWriter.append)
        -> DeferredEventQueue.add(last written offset, event)
    high watermark moves (PartitionWriter listener)
        -> an internal event: last committed offset, old snapshots dropped, deferred events completed

The group coordinator (and later the share coordinator) is written against this package.
"""
