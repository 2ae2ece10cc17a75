"""InFlightRequests: the requests sent to each node and not yet answered (Kafka's clients.InFlightRequests).

Seed 003: requests are kept "in queue dedicated to given broker. It guarantees that they're
processed in order of sending." A broker answers one connection's requests in the order it read
them (its Processor mutes the connection while a request is being handled), so the response
that arrives next always belongs to the oldest request on that node's queue.
``max.in.flight.requests.per.connection`` caps the queue.
"""

from __future__ import annotations

from collections import deque

from kafka.clients.client_request import ClientRequest


class InFlightRequests:
    def __init__(self, max_in_flight_per_connection: int) -> None:
        self.max_in_flight = max_in_flight_per_connection
        self._requests: dict[int, deque[ClientRequest]] = {}

    def add(self, request: ClientRequest) -> None:
        self._requests.setdefault(request.node_id, deque()).append(request)

    def complete_next(self, node_id: int) -> ClientRequest:
        """The oldest request to ``node_id``: the one the next response answers."""
        return self._requests[node_id].popleft()

    def remove(self, request: ClientRequest) -> None:
        """Drop a request that expects no response (acks=0) once its bytes are written."""
        self._requests[request.node_id].remove(request)

    def can_send_more(self, node_id: int, send_in_progress: bool) -> bool:
        # Also wait while the previous request is still being written: the socket buffer is full.
        queue = self._requests.get(node_id)
        return not queue or (not send_in_progress and len(queue) < self.max_in_flight)

    def count(self, node_id: int | None = None) -> int:
        if node_id is not None:
            return len(self._requests.get(node_id, ()))
        return sum(len(q) for q in self._requests.values())

    def clear_all(self, node_id: int) -> list[ClientRequest]:
        """Everything still waiting on a node whose connection just broke."""
        return list(self._requests.pop(node_id, ()))

    def timed_out_nodes(self, now_ms: int) -> list[int]:
        return [node for node, queue in self._requests.items()
                if queue and any(now_ms - r.send_time_ms > r.timeout_ms for r in queue)]
