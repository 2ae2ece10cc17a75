"""ConsumerTask: the thread that reads `__remote_log_metadata` into the RemotePartitionMetadataStore (Kafka's
org.apache.kafka.server.log.remote.metadata.storage.ConsumerTask).

It follows the metadata partitions of the user partitions this broker leads or follows: when one is added,
its metadata partition is read again from the beginning; each event of a followed user partition is applied
to the store once (a re-read skips what it applied already). A user partition is ready (`is_ready`) once its
metadata partition has been read up to the end offset it had when the partition was added: only then does
its new leader copy, knowing what its predecessors did.

Writers wait on it too: a metadata write is done when this thread has read it back (`wait_for_offset`), so
the writer's own store shows it from then on.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass

import structlog

from kafka.clients.consumer.kafka_consumer import KafkaConsumer
from kafka.log.remote import remote_log_metadata_serde as serde
from kafka.log.remote.remote_partition_metadata_store import RemotePartitionMetadataStore
from kafka.server.remote.remote_log_metadata_topic_partitioner import RemoteLogMetadataTopicPartitioner
from kafka.server.remote.topic_based_remote_log_metadata_manager_config import REMOTE_LOG_METADATA_TOPIC_NAME
from kafka.utils.time import Time
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger(__name__)


@dataclass
class UserTopicIdPartition:
    topic_id_partition: TopicIdPartition
    metadata_partition: int
    is_assigned: bool = False  # the consumer reads its metadata partition
    is_initialized: bool = False  # ... and has read it up to where it ended when assigned


def settle(setter, value) -> None:
    """Complete a writer's future unless its timeout (another thread) already did."""
    try:
        setter(value)
    except InvalidStateError:
        pass


def _metadata_tp(partition: int) -> TopicPartition:
    return TopicPartition(REMOTE_LOG_METADATA_TOPIC_NAME, partition)


class ConsumerTask:
    def __init__(self, store: RemotePartitionMetadataStore, partitioner: RemoteLogMetadataTopicPartitioner,
                 consumer: KafkaConsumer, poll_timeout_ms: int, time: Time) -> None:
        self.store = store
        self.partitioner = partitioner
        self.consumer = consumer
        self.poll_timeout_ms = poll_timeout_ms
        self.time = time
        self._condition = threading.Condition()
        self._closed = False
        self._assignment_changed = False
        self._assigned: dict[TopicIdPartition, UserTopicIdPartition] = {}
        self._processed_assignment: set[TopicIdPartition] = set()
        self._all_initialized = True
        self._read_offsets_by_metadata_partition: dict[int, int] = {}
        self._read_offsets_by_user_partition: dict[TopicIdPartition, int] = {}
        self._end_offsets: dict[int, tuple[int, int]] = {}  # metadata partition -> (start, end) when assigned
        self._waiters: list[tuple[int, int, Future[None]]] = []  # (metadata partition, offset, done)

    # ------------------------------------------------------------------ the thread

    def run(self) -> None:
        log.info("remote log metadata consumer started")
        while not self._closed:
            try:
                self.ingest_records()
            except Exception:
                log.exception("error reading remote log metadata; retrying")
                self._wait(0.1)
        self.consumer.close()
        self._fail_waiters(RuntimeError("the remote log metadata consumer is closed"))
        log.info("remote log metadata consumer stopped")

    def ingest_records(self) -> None:
        if self._assignment_changed:
            self._maybe_wait_for_partition_assignments()
        if self._closed:
            return
        if not self._processed_assignment:
            self._wait(self.poll_timeout_ms / 1000)
            return
        for record in self.consumer.poll(self.poll_timeout_ms):
            self._process_consumer_record(record.partition, record.offset, record.value)
        self._maybe_mark_user_partitions_as_ready()
        self._complete_waiters()

    def _process_consumer_record(self, partition: int, offset: int, value: bytes | None) -> None:
        metadata = serde.deserialize(value) if value is not None else None
        if metadata is not None:
            tip = (metadata.remote_log_segment_id.topic_id_partition
                   if hasattr(metadata, "remote_log_segment_id") else metadata.topic_id_partition)
            read = self._read_offsets_by_user_partition.get(tip)
            if tip in self._processed_assignment and (read is None or read < offset):
                self.store.handle_remote_log_metadata(metadata)
                self._read_offsets_by_user_partition[tip] = offset
        self._read_offsets_by_metadata_partition[partition] = offset

    def _maybe_wait_for_partition_assignments(self) -> None:
        with self._condition:
            snapshot = list(self._assigned.values())
            self._assignment_changed = False
        metadata_partitions = {utp.metadata_partition for utp in snapshot}
        self.consumer.assign([_metadata_tp(p) for p in sorted(metadata_partitions)])
        newly = {utp.metadata_partition for utp in snapshot if not utp.is_assigned}
        for partition in newly:
            self._read_offsets_by_metadata_partition.pop(partition, None)
        if newly:
            self.consumer.seek_to_beginning([_metadata_tp(p) for p in newly])
        for partition in metadata_partitions - newly:
            if partition in self._read_offsets_by_metadata_partition:
                read = self._read_offsets_by_metadata_partition[partition]
                self.consumer.seek(_metadata_tp(partition), read + 1)
        for utp in snapshot:
            if not utp.is_assigned:
                self.store.maybe_load_partition(utp.topic_id_partition)
                utp.is_assigned = True
        assigned = {utp.topic_id_partition for utp in snapshot}
        for gone in set(self._read_offsets_by_user_partition) - assigned:
            self.store.clear_topic_partition(gone)
            self._read_offsets_by_user_partition.pop(gone, None)
        self._processed_assignment = assigned
        self._all_initialized = False
        self._fetch_start_and_end_offsets(snapshot)

    def _fetch_start_and_end_offsets(self, snapshot: list[UserTopicIdPartition]) -> None:
        uninitialized = sorted({u.metadata_partition for u in snapshot
                                if u.is_assigned and not u.is_initialized})
        if not uninitialized:
            return
        tps = [_metadata_tp(p) for p in uninitialized]
        ends, starts = self.consumer.end_offsets(tps), self.consumer.beginning_offsets(tps)
        for tp in tps:
            self._end_offsets[tp.partition] = (starts[tp], ends[tp])

    def _maybe_mark_user_partitions_as_ready(self) -> None:
        if self._all_initialized:
            return
        all_initialized = True
        with self._condition:
            snapshot = list(self._assigned.values())
        for utp in snapshot:
            if utp.is_assigned and not utp.is_initialized:
                offsets = self._end_offsets.get(utp.metadata_partition)
                if offsets is not None:
                    start, end = offsets
                    read = self._read_offsets_by_metadata_partition.get(utp.metadata_partition, -1)
                    if read + 1 >= end or start == end:
                        self.store.mark_initialized(utp.topic_id_partition)
                        utp.is_initialized = True
                        log.info("remote log metadata read up to date", partition=str(utp.topic_id_partition))
            all_initialized = all_initialized and utp.is_assigned and utp.is_initialized
        self._all_initialized = all_initialized

    # ------------------------------------------------------------------ assignments (other threads)

    def add_assignments_for_partitions(self, partitions: Iterable[TopicIdPartition]) -> None:
        self._update_assignments(set(partitions), set())

    def remove_assignments_for_partitions(self, partitions: Iterable[TopicIdPartition]) -> None:
        self._update_assignments(set(), set(partitions))

    def _update_assignments(self, added: set[TopicIdPartition], removed: set[TopicIdPartition]) -> None:
        with self._condition:
            updated = dict(self._assigned)
            for tip in added:
                updated.setdefault(tip, UserTopicIdPartition(tip, self.partitioner.metadata_partition(tip)))
            for tip in removed:
                updated.pop(tip, None)
            if updated.keys() != self._assigned.keys():
                self._assigned = updated
                self._assignment_changed = True
                self._condition.notify_all()

    def is_metadata_partition_assigned(self, partition: int) -> bool:
        return any(u.metadata_partition == partition and u.is_assigned for u in list(self._assigned.values()))

    # ------------------------------------------------------------------ writers waiting to read back

    def wait_for_offset(self, partition: int, offset: int, done: Future[None]) -> None:
        """Complete `done` once the record at `offset` of metadata partition `partition` has been read."""
        with self._condition:
            self._waiters.append((partition, offset, done))
            self._condition.notify_all()

    def _complete_waiters(self) -> None:
        with self._condition:
            waiting = []
            for partition, offset, done in self._waiters:
                if done.done():
                    continue  # timed out
                if self._read_offsets_by_metadata_partition.get(partition, -1) >= offset:
                    settle(done.set_result, None)
                else:
                    waiting.append((partition, offset, done))
            self._waiters = waiting

    def _fail_waiters(self, error: Exception) -> None:
        with self._condition:
            waiters, self._waiters = self._waiters, []
        for _, _, done in waiters:
            settle(done.set_exception, error)

    def _wait(self, seconds: float) -> None:
        with self._condition:
            if not self._closed and not self._assignment_changed:
                self._condition.wait(seconds)

    def close(self) -> None:
        with self._condition:
            self._closed = True
            for utp in self._assigned.values():  # nobody waits on a closing broker's readiness
                if utp.is_assigned:
                    self.store.mark_initialized(utp.topic_id_partition)
            self._condition.notify_all()
