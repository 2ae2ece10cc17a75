"""RequestManager: the one request a raft node awaits from each peer, and which peers it keeps away
from for a while (Kafka's org.apache.kafka.raft.RequestManager).

Each destination is in one of three states, as in Kafka's ConnectionState::

    ready               nothing in flight, no backoff: a request may go (is_ready)
    awaiting response   one request sent (on_request_sent), identified by its correlation id
    backing off         the last request failed, timed out or was refused: nothing before a deadline

A response is wanted only if it answers the request in flight (is_response_expected): a late answer
to a request we gave up on is dropped. Where this one differs from Kafka's: a request that timed out
backs off before the next one (Kafka's goes ready at once), timeouts are found at each poll
(expire_requests) rather than on every question, and reset_all forgets the requests in flight but
not the backoffs, so a voter of another cluster stays kept away through our elections.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class InFlight:
    correlation_id: int
    sent_ms: int


class RequestManager:
    def __init__(self, retry_backoff_ms: int, request_timeout_ms: int) -> None:
        self.retry_backoff_ms = retry_backoff_ms
        self.request_timeout_ms = request_timeout_ms
        self._in_flight: dict[int, InFlight] = {}  # destination -> the one request we await from it
        self._backoff_until: dict[int, int] = {}  # destination -> no new request before this

    def is_ready(self, destination: int, now_ms: int) -> bool:
        return destination not in self._in_flight and self._backoff_until.get(destination, 0) <= now_ms

    def has_any_inflight_request(self) -> bool:
        return bool(self._in_flight)

    def on_request_sent(self, destination: int, correlation_id: int, now_ms: int) -> None:
        self._in_flight[destination] = InFlight(correlation_id, now_ms)

    def is_response_expected(self, destination: int, correlation_id: int) -> bool:
        in_flight = self._in_flight.get(destination)
        return in_flight is not None and in_flight.correlation_id == correlation_id

    def on_response_result(self, destination: int, correlation_id: int, success: bool, now_ms: int) -> None:
        """The answer (or word that none will come) to the request in flight: the destination is
        ready again, or backs off after a failure."""
        if not self.is_response_expected(destination, correlation_id):
            return
        del self._in_flight[destination]
        if not success:
            self.backoff(destination, now_ms)

    def backoff(self, destination: int, now_ms: int, backoff_ms: int | None = None) -> None:
        """Send nothing to the destination for retry.backoff.ms (or backoff_ms) from now."""
        self._backoff_until[destination] = now_ms + (self.retry_backoff_ms if backoff_ms is None
                                                     else backoff_ms)

    def expire_requests(self, now_ms: int) -> None:
        """Give up on requests unanswered for request_timeout_ms: their destinations back off."""
        for destination, in_flight in list(self._in_flight.items()):
            if now_ms - in_flight.sent_ms >= self.request_timeout_ms:
                del self._in_flight[destination]
                self.backoff(destination, now_ms)

    def reset_all(self) -> None:
        """A new role (candidate, leader, follower): nothing sent in the old one is awaited."""
        self._in_flight.clear()
