"""What the read side's tests build on: a real RemoteLogManager over a LocalTieredStorage and the
InmemoryRemoteLogMetadataManager, on a MockTime. Its copier copies a leader's rolled segments on its own
thread when the clock passes remote.log.manager.task.interval.ms; `tier` waits for that, then lets local
retention delete the local copies, so the log's local log start moves past its log start."""

from __future__ import annotations

import dataclasses
import uuid

from kafka.log.remote.inmemory_remote_log_metadata_manager import InmemoryRemoteLogMetadataManager
from kafka.log.remote.local_tiered_storage import LocalTieredStorage
from kafka.log.remote.remote_log_manager import RemoteLogManager
from kafka.log.remote.remote_log_manager_config import RemoteLogManagerConfig
from kafka.log.remote.topic_partition_log import TopicPartitionLog
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import wait_until

TOPIC_ID = uuid.UUID("3f1c2b9a-7d6e-4a5b-8c9d-0e1f2a3b4c5d")
INTERVAL_MS = 1000
CONFIG = RemoteLogManagerConfig(True, INTERVAL_MS, 1, 1, 1, reader_threads=2, reader_max_pending_tasks=10)


def storage(path) -> LocalTieredStorage:
    rsm = LocalTieredStorage()
    rsm.configure({"dir": str(path), "broker.id": "1"})
    return rsm


def remote_log_manager(log_dir: str, time, fetch_log, rsm=None, rlmm=None, stats=None, broker_id: int = 1,
                       **config) -> RemoteLogManager:
    def update_log_start_offset(tp: TopicPartition, offset: int) -> None:
        fetch_log(tp).update_log_start_offset_from_remote_tier(offset)
    return RemoteLogManager(dataclasses.replace(CONFIG, **config), broker_id, time, fetch_log,
                            update_log_start_offset, rsm, rlmm or InmemoryRemoteLogMetadataManager(), stats,
                            log_dir=log_dir)


def lead(rlm: RemoteLogManager, log) -> None:
    rlm.on_leadership_change([TopicPartitionLog(TopicPartition(log.topic, log.partition), log)], [],
                             {log.topic: TOPIC_ID})


def follow(rlm: RemoteLogManager, log) -> None:
    rlm.on_leadership_change([], [TopicPartitionLog(TopicPartition(log.topic, log.partition), log)],
                             {log.topic: TOPIC_ID})


def tier(log, time, up_to: int) -> None:
    """Let the copier run and copy the rolled segments up to offset `up_to`, then delete them locally."""
    time.advance(INTERVAL_MS)
    wait_until(lambda: log.highest_offset_in_remote_storage >= up_to, message=f"the copier to reach {up_to}")
    log.delete_old_segments()
