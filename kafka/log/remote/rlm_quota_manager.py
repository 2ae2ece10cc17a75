"""RLMQuotaManager: the byte rate the RemoteLogManager may copy at, all partitions together (Kafka's
org.apache.kafka.server.log.remote.quota.RLMQuotaManager for `remote.log.manager.copy.max.bytes.per.second`).

The rate is measured as Kafka's quotas measure it: bytes recorded into `window.num` samples of
`window.size.seconds` each, divided by the time they span. Before a copy, a copier thread asks for the
throttle time; while it is positive it waits (the copy quota is shared, so it waits under one lock, as
Kafka's copiers do), then records the segment's size and copies it. The default rate is unbounded.
"""

from __future__ import annotations

from kafka.utils.time import Time

LONG_MAX = 2**63 - 1


class RLMQuotaManager:
    def __init__(self, max_bytes_per_second: int, num_samples: int, window_size_seconds: int,
                 time: Time) -> None:
        self.quota = max_bytes_per_second
        self.num_samples = num_samples
        self.window_ms = window_size_seconds * 1000
        self.time = time
        self._samples: list[list[int]] = []  # [window start ms, bytes], oldest first

    def update_quota(self, max_bytes_per_second: int) -> None:
        self.quota = max_bytes_per_second

    def record(self, value: int) -> None:
        now = self.time.milliseconds()
        self._purge(now)
        if not self._samples or now >= self._samples[-1][0] + self.window_ms:
            self._samples.append([now, 0])
            del self._samples[:-self.num_samples]
        self._samples[-1][1] += value

    def get_throttle_time_ms(self) -> int:
        """How long until the measured rate is back within the quota; 0 when it is (Kafka's
        QuotaUtils.throttleTime: (rate - quota) / quota x the window the samples span)."""
        if self.quota >= LONG_MAX:
            return 0
        now = self.time.milliseconds()
        self._purge(now)
        if not self._samples:
            return 0
        window_ms = max(now - self._samples[0][0], (self.num_samples - 1) * self.window_ms, 1)
        rate = sum(size for _, size in self._samples) * 1000 / window_ms
        return int((rate - self.quota) / self.quota * window_ms) if rate > self.quota else 0

    def _purge(self, now: int) -> None:
        horizon = now - self.num_samples * self.window_ms
        while self._samples and self._samples[0][0] + self.window_ms <= horizon:
            self._samples.pop(0)
