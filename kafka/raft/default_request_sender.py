"""DefaultRequestSender: how the raft core sends a request to a peer
(Kafka's org.apache.kafka.raft.internals.DefaultRequestSender).

A raft node awaits at most one answer from each peer, and leaves a peer that failed it alone for a
while; the RequestManager keeps both. maybe_send asks it first and sends only to a peer that is
ready, building the request body only then (Kafka's maybeSendRequest takes a supplier for the same
reason). Sending gives the request the next correlation id, records it in the RequestManager as the
one in flight to that peer, and queues it for the caller of KafkaRaftClient.drain_outbound (the
KafkaRaftClientDriver, or a test), which does the network I/O.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from kafka.protocol.api_keys import ApiKey
from kafka.raft.raft_message import RaftRequest
from kafka.raft.request_manager import RequestManager
from kafka.utils.time import Time


class DefaultRequestSender:
    def __init__(self, node_id: int, requests: RequestManager, time: Time,
                 outbound: Callable[[RaftRequest], None]) -> None:
        self.node_id = node_id
        self.requests = requests
        self.time = time
        self.outbound = outbound  # queues the request for drain_outbound
        self._correlation_ids = itertools.count(1)

    def maybe_send(self, destination: int, api_key: ApiKey, body: Callable[[], dict], now: int) -> None:
        """Send `body()` to `destination` if the RequestManager says it is ready at `now`."""
        if self.requests.is_ready(destination, now):
            self.send(destination, api_key, body())

    def send(self, destination: int, api_key: ApiKey, body: dict) -> None:
        correlation_id = next(self._correlation_ids)
        now = self.time.milliseconds()
        self.requests.on_request_sent(destination, correlation_id, now)
        self.outbound(RaftRequest(correlation_id, self.node_id, destination, api_key, body, now))
