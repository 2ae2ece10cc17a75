"""Snapshot: a histogram's count, mean and percentiles at one moment (Yammer's
com.yammer.metrics.stats.Snapshot, behind every Kafka `...TimeMs` MBean's `Mean`, `50thPercentile`,
`99thPercentile` and `999thPercentile` attributes).

Seed 002's journey, measured: each request's TotalTimeMs (and the five stages it splits into) goes
into a histogram. Kafka's Yammer histogram keeps a sample of the values themselves and sorts them to
answer a percentile. A Prometheus histogram keeps only counts per bucket: how many requests took at
most 0.1 ms, at most 0.25 ms, ... (cumulative, ending with `+Inf`, which counts them all). A
percentile is then estimated from those counts the way PromQL's `histogram_quantile` does: find the
bucket the wanted rank falls in, and assume the values are spread evenly inside it.

    snapshot = Snapshot([(0.5, 2), (1.0, 6), (2.5, 9), (inf, 10)], total=9.2)
    snapshot.count, snapshot.mean      # 10, 0.92
    snapshot.get_value(0.5)            # rank 5 falls in (0.5, 1.0], the 3rd of its 4: 0.875

`kafka-jmx` (kafka/tools/jmx_tool.py) reads /metrics and prints these as Kafka's JmxTool prints a
JVM broker's MBeans.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

# The percentiles a Yammer histogram's MBean offers, by their JMX attribute names.
PERCENTILES = {"50thPercentile": 0.5, "75thPercentile": 0.75, "95thPercentile": 0.95, "98thPercentile": 0.98,
               "99thPercentile": 0.99, "999thPercentile": 0.999}


class Snapshot:
    def __init__(self, buckets: Iterable[tuple[float, float]], total: float) -> None:
        """`buckets`: (upper bound `le`, cumulative count) pairs, as /metrics lists one histogram's
        `_bucket` series; the last bound is +Inf. `total`: its `_sum`."""
        self.buckets = sorted(buckets)
        if not self.buckets or not math.isinf(self.buckets[-1][0]):
            raise ValueError("a histogram's buckets end with le=\"+Inf\", which counts every observation")
        self.total = total

    @property
    def count(self) -> float:
        return self.buckets[-1][1]

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else 0.0

    def get_value(self, quantile: float) -> float:
        """The value below which `quantile` (0 to 1) of the observations fall, estimated from the
        buckets as PromQL's histogram_quantile does; NaN when nothing was observed.

        The rank is quantile x count. The first bucket whose cumulative count reaches the rank holds
        the answer: interpolate linearly between its lower bound (the previous bucket's upper bound,
        0 for the first) and its upper bound, by how far the rank is into the bucket's own count. If
        that bucket is the +Inf one, the answer is the largest finite bound: nothing says how far
        above it the values went."""
        if not 0.0 <= quantile <= 1.0:
            raise ValueError(f"quantile must be between 0 and 1, not {quantile}")
        # BEGIN LAB 11 SOLUTION: rank = quantile x count; find its bucket; interpolate inside it (+Inf: the
        # last finite bound)
        if self.count == 0:
            return math.nan
        rank = quantile * self.count
        lower_bound, lower_count = 0.0, 0.0
        for upper_bound, cumulative in self.buckets:
            if cumulative >= rank:
                if math.isinf(upper_bound):
                    return lower_bound
                in_bucket = cumulative - lower_count
                if in_bucket == 0:  # quantile 0 and an empty first bucket (PromQL says NaN here)
                    return lower_bound
                return lower_bound + (upper_bound - lower_bound) * (rank - lower_count) / in_bucket
            lower_bound, lower_count = upper_bound, cumulative
        return lower_bound  # not reached: the +Inf bucket counts everything
        # END LAB 11 SOLUTION
