"""KafkaOffsetRangeCalculator: how many Spark tasks read a batch (Spark's
kafka010.KafkaOffsetRangeCalculator).

By default one Spark task reads one Kafka partition's range. Two options split a range over
several tasks, so that a skewed partition does not leave the other cores idle:

* ``maxRecordsPerPartition``: no task reads more than this many offsets; a range of ``size``
  offsets becomes ``ceil(size / maxRecordsPerPartition)`` tasks.
* ``minPartitions``: at least about this many tasks. When there are fewer ranges (after the split
  above), each range gets a share of ``minPartitions`` in proportion to its size, rounded; the
  ranges whose share rounds to one stay whole, and the rest of ``minPartitions`` is shared among
  the big ones. "About": rounding can give a few more or fewer.

A range is cut into parts of equal size by integer division; the last part takes what is left.
Empty ranges are dropped. Splitting only changes how many tasks read the offsets, never which
offsets: the parts of a range cover exactly ``[from_offset, until_offset)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from kafka.spark.kafka_offset_range import KafkaOffsetRange


class KafkaOffsetRangeCalculator:
    def __init__(self, min_partitions: int | None = None,
                 max_records_per_partition: int | None = None) -> None:
        if min_partitions is not None and min_partitions <= 0:
            raise ValueError("minPartitions must be positive")
        if max_records_per_partition is not None and max_records_per_partition <= 0:
            raise ValueError("maxRecordsPerPartition must be positive")
        self.min_partitions = min_partitions
        self.max_records_per_partition = max_records_per_partition

    def get_ranges(self, ranges: Iterable[KafkaOffsetRange]) -> list[KafkaOffsetRange]:
        """The ranges Spark's tasks read: ``ranges`` without the empty ones, split as configured."""
        offset_ranges = [r for r in ranges if r.size > 0]
        if self.max_records_per_partition is not None:
            offset_ranges = [part for r in offset_ranges
                             for part in divide(r, math.ceil(r.size / self.max_records_per_partition))]
        if self.min_partitions is None or len(offset_ranges) >= self.min_partitions:
            return offset_ranges
        return self._split_to_min_partitions(offset_ranges, self.min_partitions)

    @staticmethod
    def _split_to_min_partitions(offset_ranges: list[KafkaOffsetRange],
                                 min_partitions: int) -> list[KafkaOffsetRange]:
        total_size = sum(r.size for r in offset_ranges)
        # The small ranges (a share that rounds to one task) stay whole and leave the proportional
        # arithmetic, so that the big ranges share what remains of minPartitions between them.
        unsplit = [r for r in offset_ranges if part_count(r.size, total_size, min_partitions) == 1]
        split_total_size = total_size - sum(r.size for r in unsplit)
        split_min_partitions = max(min_partitions - len(unsplit), 1)
        result = []
        for r in offset_ranges:
            parts = 1 if r in unsplit else part_count(r.size, split_total_size, split_min_partitions)
            result += divide(r, parts)
        return result


def part_count(size: int, total_size: int, min_parts: int) -> int:
    """This range's share of ``min_parts`` tasks, in proportion to its size; at least one.

    Rounded half up, as Java's Math.round (Python's round() would round 2.5 to 2).
    """
    return max(math.floor(size / total_size * min_parts + 0.5), 1)


def divide(offset_range: KafkaOffsetRange, parts: int) -> list[KafkaOffsetRange]:
    """``parts`` consecutive ranges of (nearly) equal size covering ``offset_range``; none empty."""
    result = []
    remaining, start = offset_range.size, offset_range.from_offset
    for part in range(parts):
        this_part = remaining // (parts - part)  # integer division: the last part takes the rest
        remaining -= this_part
        end = min(start + this_part, offset_range.until_offset)
        if end > start:
            result.append(KafkaOffsetRange(offset_range.topic_partition, start, end))
        start = end
    return result
