"""ClientRequestQuotaManager: request_percentage quotas, on the time I/O threads spend on a client's
requests (Kafka's kafka.server.ClientRequestQuotaManager, KIP-124).

The unit is a percentage of one thread: request_percentage=50 lets a client use half of one I/O
thread's time, 200 two threads' worth. Each answered request records its I/O-thread time
(from an I/O thread taking it to the answer) as a percentage of a second, into the same windowed
Rate a byte-rate quota uses. Its throttle time is bounded by one quota window, as Kafka bounds it:
a single slow request must not lock a client out for long.
"""

from __future__ import annotations

from kafka.server.quota.client_quota_manager import ClientQuotaManager, ClientQuotaManagerConfig, QuotaType
from kafka.utils.time import Time

NANOS_TO_PERCENTAGE_PER_SECOND = 100.0 / 1e9


class ClientRequestQuotaManager(ClientQuotaManager):
    def __init__(self, config: ClientQuotaManagerConfig, time: Time) -> None:
        super().__init__(config, QuotaType.REQUEST, time)
        self.max_throttle_time_ms = config.quota_window_size_seconds * 1000

    def maybe_record_request_time(self, user: str, client_id: str, request_thread_time_ns: int,
                                  now_ms: int) -> int:
        """Record one request's I/O-thread time; 0, or how long the client must be throttled."""
        return self.maybe_record_and_get_throttle_time_ms(
            user, client_id, request_thread_time_ns * NANOS_TO_PERCENTAGE_PER_SECOND, now_ms)

    def throttle_time(self, rate: float, quota: float, window_size_ms: int) -> int:
        return min(super().throttle_time(rate, quota, window_size_ms), self.max_throttle_time_ms)
