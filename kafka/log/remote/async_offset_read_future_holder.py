"""AsyncOffsetReadFutureHolder: a ListOffsets lookup running on the remote reader pool (Kafka's
org.apache.kafka.storage.internals.log.AsyncOffsetReadFutureHolder).

job_future is the queued task, cancelled if the request expires before a reader thread takes it;
task_future gets the answer, a TimestampAndOffset or None (no record at or after the timestamp), or the
error the lookup raised. The DelayedRemoteListOffsets waiting for it looks at task_future only.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass


@dataclass(frozen=True)
class AsyncOffsetReadFutureHolder:
    job_future: Future
    task_future: Future
