"""AcquisitionLockTimerTask: the clock on a member's hold of some records
(Kafka's org.apache.kafka.server.share.fetch.AcquisitionLockTimerTask).

Every acquired batch (or single offset) gets one of these on the share-lock timer, due after
group.share.record.lock.duration.ms (or the group's share.record.lock.duration.ms). Acknowledging or
releasing the records cancels it; if it fires first, the member took too long and the records go
back to AVAILABLE (or ARCHIVED on their last delivery) for another member to acquire.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.utils.time import Time
from kafka.utils.timer.timer_task import TimerTask

# (member id, first offset, last offset, the task) -> None: SharePartition's releaseAcquisitionLockOnTimeout
AcquisitionLockTimeoutHandler = Callable[[str, int, int, "AcquisitionLockTimerTask"], None]


class AcquisitionLockTimerTask(TimerTask):
    def __init__(self, time: Time, delay_ms: int, member_id: str, first_offset: int, last_offset: int,
                 timeout_handler: AcquisitionLockTimeoutHandler, on_expired: Callable[[int], None]) -> None:
        super().__init__(delay_ms)
        self.expiration_ms = time.hi_res_clock_ms() + delay_ms
        self.member_id = member_id
        self.first_offset = first_offset
        self.last_offset = last_offset
        self.timeout_handler = timeout_handler
        self.on_expired = on_expired  # AcquisitionLockTimeoutPerSec, marked with the records released
        self.has_expired = False

    def run(self) -> None:
        self.has_expired = True
        self.on_expired(self.last_offset - self.first_offset + 1)
        self.timeout_handler(self.member_id, self.first_offset, self.last_offset, self)
