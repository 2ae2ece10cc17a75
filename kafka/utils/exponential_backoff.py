"""ExponentialBackoff: how long to wait before the next attempt (Kafka's
org.apache.kafka.common.utils.ExponentialBackoff).

initial * multiplier ** attempts, never above max, each value spread by +/- jitter so that many
clients retrying the same thing do not retry in step. A broker that cannot reach any controller
waits 100 ms, 200 ms, 400 ms ... up to a session timeout between registrations, as Kafka's
BrokerLifecycleManager does, instead of hammering the network.
"""

from __future__ import annotations

import math
import random


class ExponentialBackoff:
    def __init__(self, initial_interval_ms: int, multiplier: float, max_interval_ms: int, jitter: float,
                 rng: random.Random | None = None) -> None:
        self.initial_interval_ms = initial_interval_ms
        self.multiplier = multiplier
        self.max_interval_ms = max_interval_ms
        self.jitter = jitter
        self.rng = rng or random.Random()
        self.exp_max = (math.log(max_interval_ms / max(initial_interval_ms, 1)) / math.log(multiplier)
                        if max_interval_ms > initial_interval_ms and multiplier > 1 else 0.0)

    def backoff(self, attempts: int) -> int:
        """Milliseconds to wait after `attempts` failed attempts (0 before the first retry)."""
        if self.exp_max == 0:
            return self.initial_interval_ms
        term = self.initial_interval_ms * self.multiplier ** min(attempts, self.exp_max)
        factor = self.rng.uniform(1 - self.jitter, 1 + self.jitter) if self.jitter > 0 else 1.0
        return min(int(term * factor), self.max_interval_ms)
