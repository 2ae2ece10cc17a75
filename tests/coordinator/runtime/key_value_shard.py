"""A toy coordinator for the runtime's tests and its simulation: a key-value store in a TimelineHashMap,
whose records are puts (a value) and deletes (a tombstone), with Kafka's transactional rule (a producer's
records wait for its COMMIT marker, ABORT drops them) and a timer-driven operation (a key that expires).

It remembers, in the timeline too, which offset each record was replayed at, and refuses an offset twice:
the check that nothing is applied twice, reverted with the rest when an append fails.
"""

from __future__ import annotations

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.timeline import SnapshotRegistry, TimelineHashMap

UNKNOWN_PREFIX = "?"  # a key the serde does not know: skipped on load, as a record from a newer version


class KeyValueSerde:
    def serialize_key(self, record: CoordinatorRecord) -> bytes:
        return record.key.encode()

    def serialize_value(self, record: CoordinatorRecord) -> bytes | None:
        return None if record.value is None else record.value.encode()

    def deserialize(self, key: bytes, value: bytes | None) -> CoordinatorRecord | None:
        if key.startswith(UNKNOWN_PREFIX.encode()):
            return None
        return CoordinatorRecord(key.decode(), None if value is None else value.decode())


class KeyValueShard:
    def __init__(self, snapshot_registry: SnapshotRegistry, time, timer, topic_partition,
                 log_context: str = "") -> None:
        self.registry = snapshot_registry
        self.time = time
        self.timer = timer
        self.tp = topic_partition
        self.data = TimelineHashMap(snapshot_registry)
        self.applied = TimelineHashMap(snapshot_registry)  # offset -> (key, value): nothing applied twice
        # producer id -> ((key, value), ...) awaiting a marker
        self.pending = TimelineHashMap(snapshot_registry)
        self.loaded_with = None
        self.unloaded = False
        self.images = []
        self.double_applied: list[int] = []  # offsets replayed twice (the simulation looks here too)

    # ------------------------------------------------------------------ CoordinatorShard
    def on_loaded(self, image) -> None:
        self.loaded_with = image

    def on_new_metadata_image(self, image, delta) -> None:
        self.images.append(image)

    def on_unloaded(self) -> None:
        self.unloaded = True

    def replay(self, offset: int, producer_id: int, producer_epoch: int, record: CoordinatorRecord) -> None:
        if offset in self.applied:
            self.double_applied.append(offset)
            raise AssertionError(f"offset {offset} replayed twice: {self.applied[offset]} then {record}")
        self.applied[offset] = (record.key, record.value)
        if producer_id >= 0:
            self.pending[producer_id] = (*self.pending.get(producer_id, ()), (record.key, record.value))
        else:
            self._apply(record.key, record.value)

    def replay_end_transaction_marker(self, producer_id: int, producer_epoch: int,
                                      result: TransactionResult) -> None:
        writes = self.pending.pop(producer_id, ())
        if result is TransactionResult.COMMIT:
            for key, value in writes:
                self._apply(key, value)

    def _apply(self, key: str, value: str | None) -> None:
        if value is None:
            self.data.pop(key, None)
        else:
            self.data[key] = value

    # ------------------------------------------------------------------ operations
    def put(self, key: str, value: str | None) -> CoordinatorResult:
        return CoordinatorResult([CoordinatorRecord(key, value)], response=self.data.get(key))

    def get(self, key: str, committed_offset: int):
        return self.data.get_at(key, committed_offset)

    def expire_later(self, key: str, delay_ms: int, retry: bool = False) -> CoordinatorResult:
        """Set a timer that deletes `key` (if present then) after delay_ms: a write that starts a timer."""
        self.timer.schedule(f"expire-{key}", delay_ms, retry, lambda: self.expire(key))
        return CoordinatorResult([], response=key)

    def expire(self, key: str) -> CoordinatorResult:
        records = [CoordinatorRecord(key, None)] if key in self.data else []
        return CoordinatorResult(records, response=key)


def key_value_shard_builder(*, snapshot_registry, time, timer, topic_partition, log_context) -> KeyValueShard:
    return KeyValueShard(snapshot_registry, time, timer, topic_partition, log_context)
