"""Rate and Avg over sampled windows (Kafka's org.apache.kafka.common.metrics.stats.SampledStat,
Rate and Avg, with the MetricConfig they read).

A quota is checked against a rate measured over `samples` windows of `window_ms` each (Kafka's
quota.window.num = 11 and quota.window.size.seconds = 1). Values go into the current window; a
window older than samples x window_ms is reset before it counts again. The rate divides the values
still kept by the time they cover, and that time is never taken as less than samples - 1 full
windows: a client that has just started is not judged on one busy millisecond.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetricConfig:
    samples: int = 11
    window_ms: int = 1000


class _Sample:
    __slots__ = ("window_start_ms", "value", "event_count")

    def __init__(self, now_ms: int) -> None:
        self.reset(now_ms)

    def reset(self, now_ms: int) -> None:
        self.window_start_ms = now_ms
        self.value = 0.0
        self.event_count = 0


class SampledStat:
    """The values recorded in each of the last `samples` windows, reused round-robin."""

    def __init__(self, config: MetricConfig) -> None:
        self.config = config
        self._samples: list[_Sample] = []
        self._current = 0

    def record(self, value: float, now_ms: int) -> None:
        sample = self._current_sample(now_ms)
        if now_ms - sample.window_start_ms >= self.config.window_ms:
            sample = self._advance(now_ms)
        sample.value += value
        sample.event_count += 1

    def _current_sample(self, now_ms: int) -> _Sample:
        if not self._samples:
            self._samples.append(_Sample(now_ms))
        return self._samples[self._current]

    def _advance(self, now_ms: int) -> _Sample:
        self._current = (self._current + 1) % self.config.samples
        if self._current >= len(self._samples):
            self._samples.append(_Sample(now_ms))
        else:
            self._samples[self._current].reset(now_ms)
        return self._samples[self._current]

    def purge_obsolete_samples(self, now_ms: int) -> None:
        expire_age = self.config.samples * self.config.window_ms
        for sample in self._samples:
            if now_ms - sample.window_start_ms >= expire_age:
                sample.reset(now_ms)

    def oldest(self, now_ms: int) -> _Sample:
        self._current_sample(now_ms)
        return min(self._samples, key=lambda s: s.window_start_ms)

    def total(self, now_ms: int) -> tuple[float, int]:
        """(sum of values, number of events) of the windows still kept."""
        self.purge_obsolete_samples(now_ms)
        return sum(s.value for s in self._samples), sum(s.event_count for s in self._samples)


class Rate:
    """Values per second over the kept windows (Kafka's Rate with its default SECONDS unit)."""

    def __init__(self, config: MetricConfig) -> None:
        self.stat = SampledStat(config)

    def record(self, value: float, now_ms: int) -> None:
        self.stat.record(value, now_ms)

    def measure(self, now_ms: int) -> float:
        value, _ = self.stat.total(now_ms)
        return value / (self.window_size(now_ms) / 1000)

    def window_size(self, now_ms: int) -> int:
        """The ms the rate divides by: the time since the oldest kept window began, counted as at
        least samples - 1 whole windows (Kafka's Rate.windowSize), and never 0."""
        config = self.stat.config
        self.stat.purge_obsolete_samples(now_ms)
        elapsed = now_ms - self.stat.oldest(now_ms).window_start_ms
        full_windows = elapsed // config.window_ms
        if full_windows < config.samples - 1:
            elapsed += (config.samples - 1 - full_windows) * config.window_ms
        return max(elapsed, 1)


class Avg:
    """The average of the values recorded in the kept windows; 0 when there are none."""

    def __init__(self, config: MetricConfig) -> None:
        self.stat = SampledStat(config)

    def record(self, value: float, now_ms: int) -> None:
        self.stat.record(value, now_ms)

    def measure(self, now_ms: int) -> float:
        value, count = self.stat.total(now_ms)
        return value / count if count else 0.0
