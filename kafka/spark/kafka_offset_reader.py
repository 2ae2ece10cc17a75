"""KafkaOffsetReaderAdmin: the driver's questions about offsets (Spark's kafka010.KafkaOffsetReaderAdmin).

Everything that decides *which* offsets a batch covers runs here, on the driver, through one
``AdminClient``: which partitions the strategy names (Metadata), and where each one begins and
ends (ListOffsets with timestamp -2 and -1, or a real timestamp for the ``*Timestamp`` options).
The executors never decide offsets; they only read the ranges this class hands out.

With ``kafka.isolation.level=read_committed`` every ListOffsets asks for read_committed, as Spark
does through ``ListOffsetsOptions``: "latest" is then the last stable offset (LSO), so a batch never
ends inside a transaction that is still open.

The AdminClient is opened on first use, not in the constructor: Spark builds readers in several
processes, and only the one that plans batches should open a connection.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from kafka.clients.admin import AdminClient
from kafka.spark.consumer_strategy import ConsumerStrategy
from kafka.spark.json_utils import PartitionOffsetMap
from kafka.spark.kafka_offset_range import KafkaOffsetRange
from kafka.spark.kafka_offset_range_calculator import KafkaOffsetRangeCalculator
from kafka.spark.kafka_offset_range_limit import (
    EARLIEST,
    LATEST,
    EarliestOffsetRangeLimit,
    GlobalTimestampRangeLimit,
    KafkaOffsetRangeLimit,
    LatestOffsetRangeLimit,
    SpecificOffsetRangeLimit,
    SpecificTimestampRangeLimit,
    StrategyOnNoMatchStartingOffset,
)
from kafka.utils.topic_partition import TopicPartition

ReportDataLoss = Callable[[str], None]
ISOLATION_LEVELS = {"read_uncommitted": 0, "read_committed": 1}
NO_OFFSET = -1  # ListOffsets by timestamp: no record at or after the timestamp


def _tps(partitions: Iterable[TopicPartition]) -> str:
    return "{" + ", ".join(map(str, sorted(partitions))) + "}"


# What a failover looks like from the driver: the old leader refuses connections, or a broker
# answers that it no longer leads, until the controller has elected a new one.

class KafkaOffsetReaderAdmin:
    def __init__(self, strategy: ConsumerStrategy, driver_kafka_params: Mapping[str, str],
                 range_calculator: KafkaOffsetRangeCalculator | None = None) -> None:
        self.strategy = strategy
        params = dict(driver_kafka_params)
        # A consumer setting, not an AdminClient one: it goes into each ListOffsets request instead.
        self.isolation_level = ISOLATION_LEVELS[params.pop("isolation.level", "read_uncommitted")]
        self.driver_kafka_params = params
        self.range_calculator = range_calculator or KafkaOffsetRangeCalculator()
        self._admin: AdminClient | None = None

    @property
    def admin(self) -> AdminClient:
        if self._admin is None:
            self._admin = AdminClient(self.driver_kafka_params)
        return self._admin

    def close(self) -> None:
        if self._admin is not None:
            self._admin.close()
            self._admin = None

    # ------------------------------------------------------------------ partitions and their ends
    def partitions(self) -> set[TopicPartition]:
        return self.strategy.assigned_topic_partitions(self.admin)

    def _list_offsets(self, specs: Mapping[TopicPartition, str | int]) -> PartitionOffsetMap:
        """ListOffsets. The AdminClient asks a leader just killed or moved again, with fresh
        metadata, until default.api.timeout.ms, as Java's does for Spark's reader, so a failover
        does not fail the query."""
        if not specs:
            return {}
        answers = self.admin.list_offsets(specs, isolation_level=self.isolation_level)
        return {tp: offset for tp, (offset, _) in answers.items()}

    def fetch_earliest_offsets(self,
                               partitions: Iterable[TopicPartition] | None = None) -> PartitionOffsetMap:
        """Log start offsets, of every partition the strategy names or only of ``partitions``."""
        return self._list_offsets(dict.fromkeys(self.partitions() if partitions is None else partitions,
                                                "earliest"))

    def fetch_latest_offsets(self) -> PartitionOffsetMap:
        """Where reading stops today, for every partition the strategy names: the log end offset
        (the high watermark), or the last stable offset with read_committed."""
        return self._list_offsets(dict.fromkeys(self.partitions(), "latest"))

    def _resolve(self, partition_offsets: PartitionOffsetMap) -> PartitionOffsetMap:
        """-2 and -1 become the partition's earliest and latest offsets; other offsets stay."""
        earliest = self._list_offsets({tp: "earliest" for tp, o in partition_offsets.items()
                                       if o == EARLIEST})
        latest = self._list_offsets({tp: "latest" for tp, o in partition_offsets.items() if o == LATEST})
        return {tp: earliest[tp] if o == EARLIEST else latest[tp] if o == LATEST else o
                for tp, o in partition_offsets.items()}

    def _validate_topic_partitions(self, partition_offsets: PartitionOffsetMap, option: str) -> None:
        assigned = self.partitions()
        if assigned != set(partition_offsets):
            raise ValueError(f"If {option} contains specific offsets, you must specify all TopicPartitions.\n"
                             f"Use -1 for latest, -2 for earliest.\n"
                             f"Specified: {_tps(partition_offsets)} Assigned: {_tps(assigned)}")

    def fetch_specific_offsets(self, partition_offsets: PartitionOffsetMap,
                               report_data_loss: ReportDataLoss) -> PartitionOffsetMap:
        """Resolve JSON ``startingOffsets`` of a stream: -2 and -1 become real offsets; gone offsets
        are data loss."""
        self._validate_topic_partitions(partition_offsets, "startingOffsets")
        earliest = self.fetch_earliest_offsets(partition_offsets)
        latest = self._list_offsets(dict.fromkeys(partition_offsets, "latest"))
        resolved = {}
        for tp, offset in partition_offsets.items():
            if offset == EARLIEST:
                resolved[tp] = earliest[tp]
            elif offset == LATEST:
                resolved[tp] = latest[tp]
            else:
                if not earliest[tp] <= offset <= latest[tp]:
                    report_data_loss(f"startingOffsets for {tp} was {offset}, but the partition holds "
                                     f"[{earliest[tp]}, {latest[tp]})")
                resolved[tp] = min(max(offset, earliest[tp]), latest[tp])
        return resolved

    # ------------------------------------------------------------------ timestamps
    def fetch_specific_timestamp_based_offsets(
            self, topic_timestamps: PartitionOffsetMap, is_starting_offsets: bool,
            strategy: StrategyOnNoMatchStartingOffset) -> PartitionOffsetMap:
        """``*OffsetsByTimestamp``: each partition's first offset at or after its own timestamp."""
        assigned = self.partitions()
        if assigned != set(topic_timestamps):
            raise ValueError("If starting/endingOffsetsByTimestamp contains specific "
                             "offsets, you must specify all topics. Specified: "
                             f"{_tps(topic_timestamps)} Assigned: {_tps(assigned)}")
        return self._offsets_for_timestamps(topic_timestamps, is_starting_offsets, strategy)

    def fetch_global_timestamp_based_offsets(self, timestamp: int, is_starting_offsets: bool,
                                             strategy: StrategyOnNoMatchStartingOffset) -> PartitionOffsetMap:
        """``startingTimestamp`` / ``endingTimestamp``: one timestamp for every partition."""
        return self._offsets_for_timestamps(dict.fromkeys(self.partitions(), timestamp), is_starting_offsets,
                                            strategy)

    def _offsets_for_timestamps(self, timestamps: PartitionOffsetMap, is_starting_offsets: bool,
                                strategy: StrategyOnNoMatchStartingOffset) -> PartitionOffsetMap:
        found = self._list_offsets(timestamps)
        offsets = {}
        for tp, offset in sorted(found.items()):
            if offset == NO_OFFSET:
                # No record that late: an end is then "latest"; a start obeys the strategy.
                if is_starting_offsets and strategy == StrategyOnNoMatchStartingOffset.ERROR:
                    raise ValueError(f"No offset matched from request of topic-partition {tp} and timestamp "
                                     f"{timestamps[tp]}.")
                offset = LATEST
            offsets[tp] = offset
        return self._resolve(offsets)

    # ------------------------------------------------------------------ a batch query's two ends
    def fetch_partition_offsets(self, limit: KafkaOffsetRangeLimit,
                                is_starting_offsets: bool) -> PartitionOffsetMap:
        """Resolve a batch query's starting or ending limit to real offsets."""
        if isinstance(limit, EarliestOffsetRangeLimit):
            return self.fetch_earliest_offsets()
        if isinstance(limit, LatestOffsetRangeLimit):
            return self.fetch_latest_offsets()
        if isinstance(limit, SpecificOffsetRangeLimit):
            option = "startingOffsets" if is_starting_offsets else "endingOffsets"
            self._validate_topic_partitions(limit.partition_offsets, option)
            return self._resolve(limit.partition_offsets)
        if isinstance(limit, SpecificTimestampRangeLimit):
            return self.fetch_specific_timestamp_based_offsets(limit.topic_timestamps, is_starting_offsets,
                                                               limit.strategy_on_no_match)
        assert isinstance(limit, GlobalTimestampRangeLimit)
        return self.fetch_global_timestamp_based_offsets(limit.timestamp, is_starting_offsets,
                                                         limit.strategy_on_no_match)

    # ------------------------------------------------------------------ offset ranges
    def get_offset_ranges_from_unresolved_offsets(self, starting: KafkaOffsetRangeLimit,
                                                  ending: KafkaOffsetRangeLimit) -> list[KafkaOffsetRange]:
        """A batch query: resolve both ends now; one range per partition, split by the calculator."""
        from_offsets = self.fetch_partition_offsets(starting, is_starting_offsets=True)
        until_offsets = self.fetch_partition_offsets(ending, is_starting_offsets=False)
        if set(from_offsets) != set(until_offsets):
            raise ValueError(f"different topic partitions for starting offsets topics[{_tps(from_offsets)}] "
                             f"and ending offsets topics[{_tps(until_offsets)}]")
        ranges = []
        for tp in sorted(from_offsets):
            if from_offsets[tp] > until_offsets[tp]:
                raise ValueError(f"the starting offset {from_offsets[tp]} of {tp} is after its ending "
                                 f"offset {until_offsets[tp]}")
            ranges.append(KafkaOffsetRange(tp, from_offsets[tp], until_offsets[tp]))
        return self.range_calculator.get_ranges(ranges)

    def get_offset_ranges_from_resolved_offsets(self, from_offsets: PartitionOffsetMap,
                                                until_offsets: PartitionOffsetMap,
                                                report_data_loss: ReportDataLoss) -> list[KafkaOffsetRange]:
        """A micro-batch: both ends were decided already; new partitions are read from their start."""
        new_partitions = set(until_offsets) - set(from_offsets)
        new_partition_offsets = self.fetch_earliest_offsets(new_partitions)
        for tp, offset in sorted(new_partition_offsets.items()):
            if offset != 0:
                report_data_loss(f"Added partition {tp} starts from {offset} instead of 0. "
                                 f"Some data may have been missed")
        deleted = set(from_offsets) - set(until_offsets)
        if deleted:
            report_data_loss(f"{_tps(deleted)} are gone. Some data may have been missed.")
        start = {**new_partition_offsets, **from_offsets}
        ranges = []
        for tp in sorted(until_offsets):
            if tp not in start:
                continue
            if until_offsets[tp] < start[tp]:
                report_data_loss(f"Partition {tp}'s offset was changed from {start[tp]} to "
                                 f"{until_offsets[tp]}, some data may have been missed")
                continue
            ranges.append(KafkaOffsetRange(tp, start[tp], until_offsets[tp]))
        return self.range_calculator.get_ranges(ranges)

    def __str__(self) -> str:
        return f"KafkaOffsetReaderAdmin({self.strategy})"
