"""KafkaOffsetRangeLimit: where a read starts or ends (Spark's kafka010.KafkaOffsetRangeLimit).

Three families of options say where, and the first one given wins, as in Spark:

1. ``startingTimestamp`` / ``endingTimestamp``: one timestamp (ms) for every partition.
2. ``startingOffsetsByTimestamp`` / ``endingOffsetsByTimestamp``: JSON, a timestamp per partition,
   ``{"topic":{"0":1700000000000}}``.
3. ``startingOffsets`` / ``endingOffsets``: ``earliest``, ``latest`` or JSON naming an offset per
   partition, where -2 means "earliest" and -1 "latest" for that one partition (the same special
   values as ListOffsets' timestamps -2 and -1, which is how they are resolved).

A timestamp is resolved with ListOffsets by timestamp: the first offset whose record's timestamp is
at or after it. When no record is that late, ``startingOffsetsByTimestampStrategy`` decides:
``error`` (the default) fails the query, ``latest`` starts from the latest offset. An ending
timestamp that matches nothing simply means "latest".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from kafka.spark import json_utils
from kafka.spark.json_utils import PartitionOffsetMap

EARLIEST = -2
LATEST = -1


class StrategyOnNoMatchStartingOffset(Enum):
    ERROR = "error"
    LATEST = "latest"


@dataclass(frozen=True)
class EarliestOffsetRangeLimit:
    pass


@dataclass(frozen=True)
class LatestOffsetRangeLimit:
    pass


@dataclass(frozen=True)
class SpecificOffsetRangeLimit:
    partition_offsets: PartitionOffsetMap


@dataclass(frozen=True)
class SpecificTimestampRangeLimit:
    topic_timestamps: PartitionOffsetMap
    strategy_on_no_match: StrategyOnNoMatchStartingOffset = StrategyOnNoMatchStartingOffset.ERROR


@dataclass(frozen=True)
class GlobalTimestampRangeLimit:
    timestamp: int
    strategy_on_no_match: StrategyOnNoMatchStartingOffset = StrategyOnNoMatchStartingOffset.ERROR


KafkaOffsetRangeLimit = (EarliestOffsetRangeLimit | LatestOffsetRangeLimit | SpecificOffsetRangeLimit
                         | SpecificTimestampRangeLimit | GlobalTimestampRangeLimit)

STARTING_OFFSETS_BY_TIMESTAMP_STRATEGY_KEY = "startingoffsetsbytimestampstrategy"
# Spark's names, for messages: the options themselves are case-insensitive (lower-cased here).
OPTION_NAMES = {
    "startingoffsets": "startingOffsets", "endingoffsets": "endingOffsets",
    "startingtimestamp": "startingTimestamp", "endingtimestamp": "endingTimestamp",
    "startingoffsetsbytimestamp": "startingOffsetsByTimestamp",
    "endingoffsetsbytimestamp": "endingOffsetsByTimestamp",
    STARTING_OFFSETS_BY_TIMESTAMP_STRATEGY_KEY: "startingOffsetsByTimestampStrategy",
    "minpartitions": "minPartitions", "maxrecordsperpartition": "maxRecordsPerPartition",
    "maxoffsetspertrigger": "maxOffsetsPerTrigger", "minoffsetspertrigger": "minOffsetsPerTrigger",
    "maxtriggerdelay": "maxTriggerDelay", "failondataloss": "failOnDataLoss",
    "includeheaders": "includeHeaders",
    "kafkaconsumer.polltimeoutms": "kafkaConsumer.pollTimeoutMs", "groupidprefix": "groupIdPrefix",
}


def strategy_on_no_match(options: Mapping[str, str]) -> StrategyOnNoMatchStartingOffset:
    value = options.get(STARTING_OFFSETS_BY_TIMESTAMP_STRATEGY_KEY)
    if value is None:
        return StrategyOnNoMatchStartingOffset.ERROR
    try:
        return StrategyOnNoMatchStartingOffset(str(value).strip().lower())
    except ValueError:
        raise ValueError(f"option 'startingOffsetsByTimestampStrategy': expected error or latest, "
                         f"got {value!r}") from None


def get_kafka_offset_range_limit(options: Mapping[str, str], key: str, default: KafkaOffsetRangeLimit,
                                 global_timestamp_key: str | None = None,
                                 by_timestamp_key: str | None = None) -> KafkaOffsetRangeLimit:
    """Parse the options that say where a read starts (or ends), in Spark's order of preference."""
    strategy = strategy_on_no_match(options)
    if global_timestamp_key is not None and global_timestamp_key in options:
        text = str(options[global_timestamp_key]).strip()
        try:
            return GlobalTimestampRangeLimit(int(text), strategy)
        except ValueError:
            raise ValueError(f"option {OPTION_NAMES[global_timestamp_key]!r}: "
                             f"Expected a single long value, got {text}") from None
    if by_timestamp_key is not None and by_timestamp_key in options:
        return SpecificTimestampRangeLimit(
            json_utils.partition_offsets(str(options[by_timestamp_key]).strip(),
                                         OPTION_NAMES[by_timestamp_key]),
            strategy)
    value = options.get(key)
    if value is None:
        return default
    text = str(value).strip()
    if text.lower() == "earliest":
        return EarliestOffsetRangeLimit()
    if text.lower() == "latest":
        return LatestOffsetRangeLimit()
    offsets = json_utils.partition_offsets(text, OPTION_NAMES.get(key, key))
    for tp, offset in offsets.items():
        if offset < EARLIEST:
            raise ValueError(f"option {OPTION_NAMES.get(key, key)!r}: offset {offset} for {tp} is not an "
                             "offset, -2 (earliest) or -1 (latest)")
    return SpecificOffsetRangeLimit(offsets)
