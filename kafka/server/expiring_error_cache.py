"""ExpiringErrorCache: why the creation of a topic failed, remembered for a while (Kafka's
org.apache.kafka.server.ExpiringErrorCache).

A streams group's internal topics are created by the broker its members heartbeat to; a creation that
failed is not retried until its error expires (twice the group's heartbeat interval), and meanwhile each
heartbeat's MISSING_INTERNAL_TOPICS status says why. At most ``max_size`` topics are remembered: the one
expiring first goes first.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from dataclasses import dataclass, field


@dataclass(order=True)
class _Entry:
    expiration_time_ms: int
    sequence: int
    topic_name: str = field(compare=False)
    error_message: str = field(compare=False)


class ExpiringErrorCache:
    def __init__(self, max_size: int) -> None:
        self.max_size = max_size
        self._by_topic: dict[str, _Entry] = {}
        self._expiry_queue: list[_Entry] = []
        self._sequence = itertools.count()
        self._lock = threading.Lock()

    def put(self, topic_name: str, error_message: str, ttl_ms: int, now_ms: int) -> None:
        with self._lock:
            entry = _Entry(now_ms + ttl_ms, next(self._sequence), topic_name, error_message)
            self._by_topic[topic_name] = entry
            heapq.heappush(self._expiry_queue, entry)
            while self._expiry_queue and (self._expiry_queue[0].expiration_time_ms <= now_ms
                                          or len(self._by_topic) > self.max_size):
                evicted = heapq.heappop(self._expiry_queue)
                if self._by_topic.get(evicted.topic_name) is evicted:
                    del self._by_topic[evicted.topic_name]

    def has_error(self, topic_name: str, now_ms: int) -> bool:
        entry = self._by_topic.get(topic_name)
        return entry is not None and entry.expiration_time_ms > now_ms

    def errors_for_topics(self, topic_names, now_ms: int) -> dict[str, str]:
        """Topic -> the error its creation failed with, for those whose error has not expired."""
        out = {}
        for name in topic_names:
            entry = self._by_topic.get(name)
            if entry is not None and entry.expiration_time_ms > now_ms:
                out[name] = entry.error_message
        return out

    def clear(self) -> None:
        with self._lock:
            self._by_topic.clear()
            self._expiry_queue.clear()
