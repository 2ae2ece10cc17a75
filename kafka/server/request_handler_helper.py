"""RequestHandlerHelper: how every handler answers a request (Kafka's kafka.server.RequestHandlerHelper).

KafkaApis, each handler family beside it (StorageApis, GroupApis, AdminApis, ...) and ControllerApis
answer through this one object, as Kafka's handlers do through their `requestHelper`:

    send_response_maybe_throttle        encode the body and hand it to the connection's Processor,
                                        after charging the Request quota for the I/O-thread time
    send_response_exempt_throttle       the same without the charge: Produce and Fetch meter their
                                        own bytes and time; WriteTxnMarkers is a broker's own request
    send_error_response_maybe_throttle  the request's own error response, every part of it `error`
    send_no_op_response_exempt_throttle no bytes back (acks=0), only the connection unmuted
    close_connection                    the only answer left (a malformed body, a failed acks=0 produce)
    send_response_when_done             answer once a future is done, from the thread that completes it
    handle_error                        a handler raised: UNKNOWN_SERVER_ERROR for every part

Every client request costs I/O-thread time, which the Request quota meters; Produce also costs
bytes in (the Produce quota) and Fetch bytes out (the Fetch quota). When a client is over a quota
its response goes out at once carrying `throttle_time_ms`, and `throttle` marks the request so the
Processor keeps the connection muted that long after sending it (KIP-219). Where two quotas are
violated the longer throttle wins, and the throttle-time metric of that quota records it. The
controller's listener has no quotas (`quotas` None): its answers are never throttled.
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import structlog

from kafka.metrics.request_metrics import count_error_codes
from kafka.network.request_channel import Request, RequestChannel, Response
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import encode_response
from kafka.server.error_responses import error_response
from kafka.server.quota.client_quota_manager import ANONYMOUS, ClientQuotaManager
from kafka.server.quota.quota_factory import QuotaManagers
from kafka.utils.time import Time

log = structlog.get_logger("kafka.server.RequestHandlerHelper")

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
    end = request.api_local_complete_time_ns
    if end < 0:  # its local work is not done yet
        end = _time.monotonic_ns()
    return max(0, end - request.request_dequeue_time_ns)


class RequestHandlerHelper:
    def __init__(self, request_channel: RequestChannel, quotas: QuotaManagers | None, time: Time) -> None:
        self.request_channel = request_channel
        self.quotas = quotas
        self.time = time

    # ------------------------------------------------------------------ answering
    def send_response_maybe_throttle(self, request: Request, body: dict) -> None:
        """Kafka's sendResponseMaybeThrottle: a client request pays its I/O-thread time first."""
        self.maybe_throttle_response(request, body)  # the Request quota (KIP-124)
        self.send_response_exempt_throttle(request, body)

    def send_response(self, request: Request, body: dict) -> None:
        """The responder the share families are given (ShareApis, ShareCoordinatorApis): Kafka's
        requestHelper.sendMaybeThrottle."""
        self.send_response_maybe_throttle(request, body)

    def send_response_exempt_throttle(self, request: Request, body: dict) -> None:
        header = request.header
        self.request_channel.update_error_metrics(request, count_error_codes(body))
        payload = encode_response(APIS[header.api_key], header.api_version, header.correlation_id, body)
        self.send_payload(request, payload)

    def send_error_response_maybe_throttle(self, request: Request, error: Errors) -> None:
        """The request's own error response, every part of it answered with `error`."""
        body = error_response(request.header.api_key, request.header.api_version, request.body, error)
        if body is None:
            self.close_connection(request)
        else:
            self.send_response_maybe_throttle(request, body)

    def send_no_op_response_exempt_throttle(self, request: Request) -> None:
        """No response (an acks=0 produce): the Processor only unmutes the connection."""
        self.send_payload(request, None)

    def close_connection(self, request: Request) -> None:
        self.request_channel.close_connection(request)

    def send_payload(self, request: Request, payload: bytes | bytearray | None) -> None:
        """Stamp the request's times and hand the bytes to the Processor that owns its connection."""
        if request.api_local_complete_time_ns < 0:  # answered on the I/O thread
            now = request.api_local_complete_time_ns = request.mark("I/O thread done")
        else:  # answered later, by whichever thread completed the delayed operation
            now = request.mark("out of purgatory")
        request.api_remote_complete_time_ns = now
        self.request_channel.send_response(Response(request, payload))

    def send_response_when_done(self, request: Request, future: Future,
                                body_of: Callable[[Any], dict]) -> None:
        """Answer once `future` is done, from the thread that completes it (the controller channel's,
        the metadata publisher's, a purgatory's reaper): the I/O thread has long moved on."""
        def done(finished: Future) -> None:
            try:
                body = body_of(finished.result())
            except Exception:  # a bug: answer with the error response, as a raising handler is answered
                log.exception("building a delayed response failed", api=APIS[request.header.api_key].name)
                self.handle_error(request)
                return
            self.send_response_maybe_throttle(request, body)

        future.add_done_callback(done)

    def handle_error(self, request: Request) -> None:
        """A handler raised (Kafka's handleError): answer every partition, topic, resource or group
        of the request with UNKNOWN_SERVER_ERROR, keeping the connection. Only a request whose
        error response cannot be built (or encoded) costs its connection."""
        header = request.header
        body = error_response(header.api_key, header.api_version, request.body)
        if header.api_key == ApiKey.PRODUCE and getattr(request.body, "acks", None) == 0:
            body = None  # the producer reads no response: closing is the only way to tell it
        if body is not None and request.api_remote_complete_time_ns < 0:
            try:
                self.send_response_maybe_throttle(request, body)
                return
            except Exception:
                log.exception("cannot encode the error response", api=APIS[header.api_key].name)
        self.close_connection(request)

    # ------------------------------------------------------------------ quotas
    def throttle(self, manager: ClientQuotaManager, request: Request, throttle_time_ms: int) -> None:
        """Record the throttle in the quota's metric and mark the request: the Processor mutes the
        connection for throttle_time_ms once the response is sent."""
        manager.record_throttle_time(user_of(request), client_id_of(request), throttle_time_ms,
                                     self.time.milliseconds())
        request.throttle_time_ms = max(request.throttle_time_ms, throttle_time_ms)

    def maybe_record_request_quota(self, request: Request) -> int:
        """Kafka's ClientRequestQuotaManager.maybeRecordAndGetThrottleTimeMs for one answered request."""
        return self.quotas.request.maybe_record_request_time(
            user_of(request), client_id_of(request), request_thread_time_ns(request),
            self.time.milliseconds())

    def maybe_throttle_response(self, request: Request, body: dict | None) -> None:
        """Charge the Request quota; over it, the body carries the throttle and the connection stays muted."""
        if (body is None or "throttle_time_ms" not in body or request.header.api_key in SELF_METERED_APIS
                or self.quotas is None or not self.quotas.request.quotas_enabled):
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
        return self._throttle_max(request, (self.quotas.produce, bandwidth),
                                  (self.quotas.request, request_time))

    def fetch_throttle_time_ms(self, request: Request, response_bytes: int) -> int:
        """Bytes out against consumer_byte_rate and I/O time against request_percentage. A throttled
        fetch is answered empty, so its bytes are taken back from the Fetch quota, as Kafka does."""
        now = self.time.milliseconds()
        user, client_id = user_of(request), client_id_of(request)
        request_time = self.maybe_record_request_quota(request)
        bandwidth = self.quotas.fetch.maybe_record_and_get_throttle_time_ms(user, client_id, response_bytes,
                                                                            now)
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
