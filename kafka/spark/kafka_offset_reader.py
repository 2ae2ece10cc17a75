"""KafkaOffsetReaderAdmin: the driver's questions about offsets (Spark's kafka010.KafkaOffsetReaderAdmin).

Everything that decides *which* offsets a batch covers runs here, on the driver, through one
``AdminClient``: which partitions the strategy names (Metadata), and where each one begins and
ends (ListOffsets with timestamp -2 and -1). The executors never decide offsets; they only read
the ranges this class hands out.

The AdminClient is opened on first use, not in the constructor: Spark builds readers in several
processes, and only the one that plans batches should open a connection.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from kafka.clients.admin import AdminClient
from kafka.spark.consumer_strategy import ConsumerStrategy
from kafka.spark.json_utils import PartitionOffsetMap
from kafka.spark.kafka_offset_range import KafkaOffsetRange
from kafka.spark.kafka_offset_range_limit import (
    EARLIEST,
    LATEST,
    EarliestOffsetRangeLimit,
    KafkaOffsetRangeLimit,
    LatestOffsetRangeLimit,
)
from kafka.utils.topic_partition import TopicPartition

ReportDataLoss = Callable[[str], None]


class KafkaOffsetReaderAdmin:
    def __init__(self, strategy: ConsumerStrategy, driver_kafka_params: Mapping[str, str]) -> None:
        self.strategy = strategy
        self.driver_kafka_params = dict(driver_kafka_params)
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

    def _list_offsets(self, partitions: Iterable[TopicPartition], spec: str) -> PartitionOffsetMap:
        partitions = set(partitions)
        if not partitions:
            return {}
        return {tp: offset for tp, (offset, _) in self.admin.list_offsets(dict.fromkeys(partitions, spec)).items()}

    def fetch_earliest_offsets(self, partitions: Iterable[TopicPartition] | None = None) -> PartitionOffsetMap:
        """Log start offsets, of every partition the strategy names or only of ``partitions``."""
        return self._list_offsets(self.partitions() if partitions is None else partitions, "earliest")

    def fetch_latest_offsets(self) -> PartitionOffsetMap:
        """Log end offsets (the next offset to be written) of every partition the strategy names."""
        return self._list_offsets(self.partitions(), "latest")

    def fetch_specific_offsets(self, partition_offsets: PartitionOffsetMap,
                               report_data_loss: ReportDataLoss) -> PartitionOffsetMap:
        """Resolve JSON ``startingOffsets``: -2 and -1 become real offsets; gone offsets are data loss."""
        self._validate_topic_partitions(partition_offsets)
        earliest = self.fetch_earliest_offsets(partition_offsets)
        latest = self._list_offsets(partition_offsets, "latest")
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

    def _validate_topic_partitions(self, partition_offsets: PartitionOffsetMap) -> None:
        assigned = self.partitions()
        if assigned != set(partition_offsets):
            raise ValueError(f"offsets JSON must name every partition the query reads: it names "
                             f"{sorted(map(str, partition_offsets))}, the query reads {sorted(map(str, assigned))}")

    def fetch_partition_offsets(self, limit: KafkaOffsetRangeLimit) -> PartitionOffsetMap:
        """Resolve a batch query's ``startingOffsets`` or ``endingOffsets`` to real offsets."""
        if isinstance(limit, EarliestOffsetRangeLimit):
            return self.fetch_earliest_offsets()
        if isinstance(limit, LatestOffsetRangeLimit):
            return self.fetch_latest_offsets()
        self._validate_topic_partitions(limit.partition_offsets)
        specific = limit.partition_offsets
        earliest = self.fetch_earliest_offsets(tp for tp, o in specific.items() if o == EARLIEST)
        latest = self._list_offsets((tp for tp, o in specific.items() if o == LATEST), "latest")
        return {tp: earliest[tp] if o == EARLIEST else latest[tp] if o == LATEST else o for tp, o in specific.items()}

    # ------------------------------------------------------------------ offset ranges
    def get_offset_ranges_from_unresolved_offsets(self, starting: KafkaOffsetRangeLimit,
                                                  ending: KafkaOffsetRangeLimit) -> list[KafkaOffsetRange]:
        """A batch query: resolve both ends now; one range per partition."""
        from_offsets = self.fetch_partition_offsets(starting)
        until_offsets = self.fetch_partition_offsets(ending)
        if set(from_offsets) != set(until_offsets):
            raise ValueError(f"startingOffsets and endingOffsets name different partitions: "
                             f"{sorted(map(str, from_offsets))} and {sorted(map(str, until_offsets))}")
        ranges = []
        for tp in sorted(from_offsets):
            if from_offsets[tp] > until_offsets[tp]:
                raise ValueError(f"the starting offset {from_offsets[tp]} of {tp} is after its ending "
                                 f"offset {until_offsets[tp]}")
            ranges.append(KafkaOffsetRange(tp, from_offsets[tp], until_offsets[tp]))
        return ranges

    def get_offset_ranges_from_resolved_offsets(self, from_offsets: PartitionOffsetMap,
                                                until_offsets: PartitionOffsetMap,
                                                report_data_loss: ReportDataLoss) -> list[KafkaOffsetRange]:
        """A micro-batch: both ends were decided already; new partitions are read from their start."""
        new_partitions = set(until_offsets) - set(from_offsets)
        new_partition_offsets = self.fetch_earliest_offsets(new_partitions)
        for tp, offset in sorted(new_partition_offsets.items()):
            if offset != 0:
                report_data_loss(f"added partition {tp} starts from {offset} instead of 0")
        deleted = set(from_offsets) - set(until_offsets)
        if deleted:
            report_data_loss(f"{sorted(map(str, deleted))} are gone")
        start = {**new_partition_offsets, **from_offsets}
        ranges = []
        for tp in sorted(until_offsets):
            if tp not in start:
                continue
            if until_offsets[tp] < start[tp]:
                report_data_loss(f"partition {tp}'s offset was changed from {start[tp]} to {until_offsets[tp]}")
                continue
            ranges.append(KafkaOffsetRange(tp, start[tp], until_offsets[tp]))
        return ranges

    def __str__(self) -> str:
        return f"KafkaOffsetReaderAdmin({self.strategy})"
