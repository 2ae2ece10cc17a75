"""RequestHandlerHelper: the quota side of answering a request (Kafka's kafka.server.RequestHandlerHelper
and the quota parts of KafkaApis' produce and fetch handlers).

Every client request costs I/O-thread time, which the Request quota meters; Produce also costs
bytes in (the Produce quota) and Fetch bytes out (the Fetch quota). When a client is over a quota
its response goes out at once carrying `throttle_time_ms`, and `throttle` marks the request so the
Processor keeps the connection muted that long after sending it (KIP-219). Where two quotas are
violated the longer throttle wins, and the throttle-time metric of that quota records it.
"""

from __future__ import annotations

import time as _time

from kafka.network.request_channel import Request
from kafka.protocol.api_keys import ApiKey
from kafka.server.quota.client_quota_manager import ANONYMOUS, ClientQuotaManager
from kafka.server.quota.quota_factory import QuotaManagers
from kafka.utils.time import Time

# APIs whose handlers do their own quota accounting (Produce, Fetch) or that brokers send each
# other (WriteTxnMarkers: Kafka's sendResponseExemptThrottle for cluster actions).
SELF_METERED_APIS = frozenset({ApiKey.PRODUCE, ApiKey.FETCH, ApiKey.WRITE_TXN_MARKERS})


def user_of(request: Request) -> str:
    """The quota's user: the connection's principal name, ANONYMOUS without authentication."""
    principal = getattr(request, "principal", None)
    return getattr(principal, "name", None) or ANONYMOUS


def client_id_of(request: Request) -> str:
    return request.header.client_id or ""


def request_thread_time_ns(request: Request) -> int:
    """I/O-thread time so far (Kafka's Request.requestThreadTimeNanos)."""
    if request.request_dequeue_time_ns < 0:
        return 0
    end = request.api_local_complete_time_ns if request.api_local_complete_time_ns >= 0 else _time.monotonic_ns()
    return max(0, end - request.request_dequeue_time_ns)


class RequestHandlerHelper:
    def __init__(self, quotas: QuotaManagers, time: Time) -> None:
        self.quotas = quotas
        self.time = time

    def throttle(self, manager: ClientQuotaManager, request: Request, throttle_time_ms: int) -> None:
        """Record the throttle in the quota's metric and mark the request: the Processor mutes the
        connection for throttle_time_ms once the response is sent."""
        manager.record_throttle_time(user_of(request), client_id_of(request), throttle_time_ms,
                                     self.time.milliseconds())
        request.throttle_time_ms = max(request.throttle_time_ms, throttle_time_ms)

    def maybe_record_request_quota(self, request: Request) -> int:
        """Kafka's ClientRequestQuotaManager.maybeRecordAndGetThrottleTimeMs for one answered request."""
        return self.quotas.request.maybe_record_request_time(
            user_of(request), client_id_of(request), request_thread_time_ns(request), self.time.milliseconds())

    def maybe_throttle_response(self, request: Request, body: dict | None) -> None:
        """Kafka's sendResponseMaybeThrottle: any other client request pays its I/O-thread time."""
        if (body is None or "throttle_time_ms" not in body or request.header.api_key in SELF_METERED_APIS
                or not self.quotas.request.quotas_enabled):
            return
        throttle_time_ms = self.maybe_record_request_quota(request)
        if throttle_time_ms > 0:
            self.throttle(self.quotas.request, request, throttle_time_ms)
            body["throttle_time_ms"] = throttle_time_ms

    def produce_throttle_time_ms(self, request: Request, acks: int) -> int:
        """Bytes in against producer_byte_rate, I/O time against request_percentage (not for acks=0,
        as in Kafka); the longer throttle is applied."""
        now = self.time.milliseconds()
        bandwidth = self.quotas.produce.maybe_record_and_get_throttle_time_ms(
            user_of(request), client_id_of(request), len(request.buffer), now)
        request_time = 0 if acks == 0 else self.maybe_record_request_quota(request)
        return self._throttle_max(request, (self.quotas.produce, bandwidth), (self.quotas.request, request_time))

    def fetch_throttle_time_ms(self, request: Request, response_bytes: int) -> int:
        """Bytes out against consumer_byte_rate and I/O time against request_percentage. A throttled
        fetch is answered empty, so its bytes are taken back from the Fetch quota, as Kafka does."""
        now = self.time.milliseconds()
        user, client_id = user_of(request), client_id_of(request)
        request_time = self.maybe_record_request_quota(request)
        bandwidth = self.quotas.fetch.maybe_record_and_get_throttle_time_ms(user, client_id, response_bytes, now)
        throttle_time_ms = self._throttle_max(request, (self.quotas.fetch, bandwidth),
                                              (self.quotas.request, request_time))
        if throttle_time_ms > 0:
            self.quotas.fetch.unrecord_quota_sensor(user, client_id, response_bytes, now)
        return throttle_time_ms

    def max_fetch_bytes_in_quota_window(self, request: Request) -> float:
        return self.quotas.fetch.max_value_in_quota_window(user_of(request), client_id_of(request))

    def _throttle_max(self, request: Request, bandwidth: tuple[ClientQuotaManager, int],
                      request_time: tuple[ClientQuotaManager, int]) -> int:
        manager, throttle_time_ms = bandwidth if bandwidth[1] > request_time[1] else request_time
        if throttle_time_ms > 0:
            self.throttle(manager, request, throttle_time_ms)
        return throttle_time_ms
