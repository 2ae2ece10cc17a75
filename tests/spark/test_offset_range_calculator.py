"""KafkaOffsetRangeCalculator without Spark: how minPartitions and maxRecordsPerPartition split ranges."""

from __future__ import annotations

import pytest

from kafka.spark.kafka_offset_range import KafkaOffsetRange
from kafka.spark.kafka_offset_range_calculator import KafkaOffsetRangeCalculator
from kafka.utils.topic_partition import TopicPartition as TP


def r(partition: int, start: int, end: int) -> KafkaOffsetRange:
    return KafkaOffsetRange(TP("t", partition), start, end)


def covers_exactly(parts: list[KafkaOffsetRange], ranges: list[KafkaOffsetRange]) -> bool:
    """The parts of each range are consecutive, non-empty and cover it exactly."""
    for whole in ranges:
        mine = [p for p in parts if p.topic_partition == whole.topic_partition]
        if whole.size <= 0:
            if mine:
                return False
            continue
        if mine[0].from_offset != whole.from_offset or mine[-1].until_offset != whole.until_offset:
            return False
        if any(a.until_offset != b.from_offset
               for a, b in zip(mine, mine[1:], strict=False)) or any(p.size <= 0 for p in mine):
            return False
    return True


def test_without_options_one_task_per_partition_and_empty_ranges_dropped():
    ranges = [r(0, 0, 10), r(1, 5, 5), r(2, 3, 4)]
    assert KafkaOffsetRangeCalculator().get_ranges(ranges) == [r(0, 0, 10), r(2, 3, 4)]


def test_min_partitions_at_most_the_number_of_ranges_changes_nothing():
    ranges = [r(0, 0, 100), r(1, 0, 1)]
    assert KafkaOffsetRangeCalculator(min_partitions=2).get_ranges(ranges) == ranges


def test_min_partitions_splits_big_ranges_in_proportion_and_keeps_small_ones_whole():
    # Spark's KafkaOffsetRangeCalculatorSuite case: sizes 1, 10000 with minPartitions 3 -> the small
    # range stays whole, the big one takes the other 2 tasks.
    ranges = [r(0, 1, 2), r(1, 1, 10001)]
    assert KafkaOffsetRangeCalculator(min_partitions=3).get_ranges(ranges) == [
        r(0, 1, 2), r(1, 1, 5001), r(1, 5001, 10001)]


def test_min_partitions_on_one_range_cuts_equal_parts_and_the_last_takes_the_rest():
    assert KafkaOffsetRangeCalculator(min_partitions=3).get_ranges([r(0, 0, 10)]) == [
        r(0, 0, 3), r(0, 3, 6), r(0, 6, 10)]


def test_min_partitions_larger_than_a_range_never_makes_empty_parts():
    parts = KafkaOffsetRangeCalculator(min_partitions=5).get_ranges([r(0, 0, 2)])
    assert parts == [r(0, 0, 1), r(0, 1, 2)]


def test_rounding_is_half_up_like_javas_math_round():
    # Two ranges of 5 and 15 records, minPartitions 5: shares 1.25 -> 1 and 3.75 -> 4 (half up).
    parts = KafkaOffsetRangeCalculator(min_partitions=5).get_ranges([r(0, 0, 5), r(1, 0, 15)])
    assert [p.size for p in parts] == [5, 3, 4, 4, 4]


def test_max_records_per_partition_caps_every_task():
    ranges = [r(0, 0, 25), r(1, 100, 110), r(2, 7, 8)]
    parts = KafkaOffsetRangeCalculator(max_records_per_partition=10).get_ranges(ranges)
    assert parts == [r(0, 0, 8), r(0, 8, 16), r(0, 16, 25), r(1, 100, 110), r(2, 7, 8)]
    assert max(p.size for p in parts) <= 10


def test_both_options_split_by_max_records_then_up_to_min_partitions():
    ranges = [r(0, 0, 40), r(1, 0, 20)]
    parts = KafkaOffsetRangeCalculator(min_partitions=6, max_records_per_partition=20).get_ranges(ranges)
    assert covers_exactly(parts, ranges)
    assert len(parts) == 6 and max(p.size for p in parts) <= 20


@pytest.mark.parametrize("min_partitions", [1, 2, 3, 7, 50])
@pytest.mark.parametrize("max_records", [None, 1, 3, 1000])
def test_parts_always_cover_each_range_exactly(min_partitions, max_records):
    ranges = [r(0, 0, 97), r(1, 10, 11), r(2, 5, 5), r(3, 1000, 1333)]
    parts = KafkaOffsetRangeCalculator(min_partitions, max_records).get_ranges(ranges)
    assert covers_exactly(parts, ranges)
    assert sum(p.size for p in parts) == 97 + 1 + 333


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"min_partitions": 0}, "minPartitions must be positive"),
    ({"max_records_per_partition": -1}, "maxRecordsPerPartition must be positive"),
])
def test_options_must_be_positive(kwargs, message):
    with pytest.raises(ValueError, match=message):
        KafkaOffsetRangeCalculator(**kwargs)
