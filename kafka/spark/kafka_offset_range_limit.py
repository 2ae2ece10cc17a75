"""KafkaOffsetRangeLimit: where a read starts or ends (Spark's kafka010.KafkaOffsetRangeLimit).

``startingOffsets`` and ``endingOffsets`` are ``earliest``, ``latest`` or JSON naming an offset per
partition, where -2 means "earliest" and -1 "latest" for that one partition (the same special
values as ListOffsets' timestamps -2 and -1, which is how they are resolved).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kafka.spark import json_utils
from kafka.spark.json_utils import PartitionOffsetMap

EARLIEST = -2
LATEST = -1


@dataclass(frozen=True)
class EarliestOffsetRangeLimit:
    pass


@dataclass(frozen=True)
class LatestOffsetRangeLimit:
    pass


@dataclass(frozen=True)
class SpecificOffsetRangeLimit:
    partition_offsets: PartitionOffsetMap


KafkaOffsetRangeLimit = EarliestOffsetRangeLimit | LatestOffsetRangeLimit | SpecificOffsetRangeLimit


def get_kafka_offset_range_limit(options: Mapping[str, str], key: str,
                                 default: KafkaOffsetRangeLimit) -> KafkaOffsetRangeLimit:
    """Parse option ``key`` (``startingOffsets`` or ``endingOffsets``), or return ``default``."""
    value = options.get(key)
    if value is None:
        return default
    text = str(value).strip()
    if text.lower() == "earliest":
        return EarliestOffsetRangeLimit()
    if text.lower() == "latest":
        return LatestOffsetRangeLimit()
    offsets = json_utils.partition_offsets(text, key)
    for tp, offset in offsets.items():
        if offset < EARLIEST:
            raise ValueError(f"option {key!r}: offset {offset} for {tp} is not an offset, -2 (earliest) or -1 (latest)")
    return SpecificOffsetRangeLimit(offsets)
