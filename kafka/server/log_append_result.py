"""LogAppendResult: one partition's outcome of a produce's local append (Kafka's
ReplicaManager.LogAppendResult).

What ReplicaManager.append_to_local_log hands back to append_records: the LogAppendInfo of a
successful append or the error that refused it, and whether the append moved the high watermark
(then the produces and fetches waiting on the partition are tried at once). From it come the
partition's answer (`partition_response`) and, for acks=all, the offset the high watermark must
reach (`required_offset`) before DelayedProduce answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.log.log_append_info import LogAppendInfo
from kafka.protocol.errors import Errors
from kafka.server.delayed_produce import PartitionResponse


@dataclass(slots=True)
class LogAppendResult:
    info: LogAppendInfo | None = None  # None: nothing was appended (see error)
    error: Errors = Errors.NONE
    error_message: str | None = None
    record_errors: tuple[tuple[int, str], ...] = ()  # KIP-467: (index of the record in its batch, why)
    hw_moved: bool = False
    log_start_offset: int = -1  # of a refused append: known when the records were read and found wanting

    @classmethod
    def failed(cls, error: Errors, error_message: str | None = None,
               record_errors: tuple[tuple[int, str], ...] = (),
               log_start_offset: int = -1) -> LogAppendResult:
        return cls(None, error, error_message, record_errors, log_start_offset=log_start_offset)

    @property
    def required_offset(self) -> int:
        """The high watermark an acks=all produce waits for: past the last offset appended (-1: none)."""
        return self.info.last_offset + 1 if self.info is not None else -1

    def partition_response(self) -> PartitionResponse:
        """The produce response's entry. A retried batch (info.is_duplicate) is answered NONE with the
        offsets of its first append. A refused one carries its error message only when records were
        found wanting (KIP-467's record_errors): Kafka answers every other refusal without a message
        (its hasCustomErrorMessage), and the broker logs why."""
        info = self.info
        if info is None:
            return PartitionResponse(self.error, log_start_offset=self.log_start_offset,
                                     error_message=self.error_message if self.record_errors else None,
                                     record_errors=self.record_errors)
        return PartitionResponse(self.error, base_offset=info.first_offset,
                                 log_append_time=info.log_append_time,
                                 log_start_offset=info.log_start_offset)
