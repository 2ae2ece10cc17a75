"""RLMTask: one partition's recurring job in a RemoteLogManager thread pool (Kafka's
RemoteLogManager.RLMTask and RLMTaskWithFuture).

A leader has two, an RLMCopyTask on the copier pool and an RLMExpirationTask on the expiration pool; a
follower one, an RLMFollowerTask. Each run first checks the task was not cancelled (the partition changed
hands) and that the partition's remote log metadata has been read up to date (`is_ready`: a new leader
must know what its predecessor copied before it copies anything), then does its work on the partition's
log. An error is logged and the next run tries again; a retriable one (metadata not read yet) quietly.

The task is handed the RemoteLogManager that runs it and uses its collaborators (the metadata manager,
the storage manager, the clock) as Kafka's inner classes use their outer instance's.
"""

from __future__ import annotations

import abc
from typing import NamedTuple

import structlog

from kafka.log.remote.remote_partition_metadata_store import ReplicaNotAvailableError
from kafka.log.remote.rlm_scheduled_thread_pool import ScheduledRun
from kafka.log.unified_log import UnifiedLog
from kafka.utils.topic_id_partition import TopicIdPartition

log = structlog.get_logger(__name__)


class OffsetAndEpoch(NamedTuple):
    """An offset and the leader epoch it was written in (Kafka's server.common.OffsetAndEpoch)."""

    offset: int
    epoch: int


class RLMTask(abc.ABC):
    def __init__(self, rlm, topic_id_partition: TopicIdPartition) -> None:
        self.rlm = rlm  # the RemoteLogManager running this task
        self.topic_id_partition = topic_id_partition
        self._cancelled = False

    def cancel(self) -> None:
        self._cancelled = True

    @property
    def is_cancelled(self) -> bool:
        return self._cancelled

    def run(self) -> None:
        if self._cancelled:
            return
        if not self.rlm.remote_log_metadata_manager.is_ready(self.topic_id_partition):
            log.debug("remote log metadata not read yet: skipping this run",
                      partition=str(self.topic_id_partition))
            return
        unified_log = self.rlm.fetch_log(self.topic_id_partition.topic_partition)
        if unified_log is None:
            return
        try:
            self.execute(unified_log)
        except ReplicaNotAvailableError as e:
            log.debug("retriable error in a remote log task", task=str(self), error=str(e))
        except Exception:
            if not self._cancelled:
                log.exception("remote log task failed; it runs again", task=str(self))

    @abc.abstractmethod
    def execute(self, unified_log: UnifiedLog) -> None:
        """One run's work on the partition's log."""

    def __str__(self) -> str:
        return f"{type(self).__name__}[{self.topic_id_partition}]"


class RLMTaskWithFuture:
    """A task with its place in a thread pool: cancelling stops both (Kafka's RLMTaskWithFuture)."""

    def __init__(self, rlm_task: RLMTask, scheduled: ScheduledRun) -> None:
        self.rlm_task = rlm_task
        self.scheduled = scheduled

    def cancel(self) -> None:
        self.rlm_task.cancel()
        self.scheduled.cancel()
