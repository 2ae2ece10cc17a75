"""KafkaMicroBatchStream: Spark's micro-batches mapped onto Kafka offsets (Spark's class of that name).

A streaming query is a loop that Spark runs on the driver; this class answers its questions:

1. ``initialOffset()`` -- where a new query starts (``startingOffsets``, default ``latest``).
   A query restarted from its checkpoint never asks: it continues from the offsets logged there.
2. ``latestOffset(start, limit)`` -- where the next micro-batch ends: every partition's log end
   offset, or less when ``maxOffsetsPerTrigger`` caps the batch, or ``start`` itself (no batch)
   while fewer than ``minOffsetsPerTrigger`` records wait and ``maxTriggerDelay`` has not passed.
   Spark writes the answer to the checkpoint's offset log *before* it runs the batch, so a batch
   is replayed with the same ends.
3. ``partitions(start, end)`` -- the batch as one ``KafkaBatchInputPartition`` per topic-partition
   (or more, split by ``minPartitions`` / ``maxRecordsPerPartition``).
4. ``read(partition)`` -- on an executor: the records of that range (KafkaBatchPartitionReader).
5. ``commit(end)`` -- the batch is done. Kafka is not told: the checkpoint is the only record of
   what the query has read, as in Spark, so nothing is committed to a consumer group.

Offsets are plain dicts ``{"topic": {"0": 23}}`` (``json_utils.partition_offsets_json``), which
Spark serialises to JSON for the offset log.

Read limits: Spark's source answers ``getDefaultReadLimit`` with a CompositeReadLimit of
``ReadMinRows(minOffsetsPerTrigger, maxTriggerDelay)`` and ``ReadMaxRows(maxOffsetsPerTrigger)``.
PySpark's Python API has ReadMinRows and ReadMaxRows but no composite, and its ReadMinRows has no
delay. So this stream hands Spark the one limit it can express (ReadMaxRows when both are set) and
keeps the rest itself: the minimum and the delay come from its own options.
"""

from __future__ import annotations

from collections.abc import Iterator

import structlog
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxRows,
    ReadMinRows,
    SupportsTriggerAvailableNow,
)

from kafka.spark import json_utils
from kafka.spark.json_utils import PartitionOffsetMap
from kafka.spark.kafka_batch_partition_reader import KafkaBatchPartitionReader
from kafka.spark.kafka_data_consumer import data_loss_reporter
from kafka.spark.kafka_offset_range import KafkaBatchInputPartition
from kafka.spark.kafka_offset_range_limit import (
    EarliestOffsetRangeLimit,
    GlobalTimestampRangeLimit,
    KafkaOffsetRangeLimit,
    LatestOffsetRangeLimit,
    SpecificTimestampRangeLimit,
)
from kafka.spark.kafka_offset_reader import KafkaOffsetReaderAdmin
from kafka.utils.time import Time

log = structlog.get_logger("kafka.spark.KafkaMicroBatchStream")

DEFAULT_MAX_TRIGGER_DELAY_MS = 15 * 60 * 1000  # Spark's default maxTriggerDelay, "15m"


class KafkaMicroBatchStream(DataSourceStreamReader, SupportsTriggerAvailableNow):
    def __init__(self, offset_reader: KafkaOffsetReaderAdmin, executor_kafka_params: dict[str, str],
                 starting_offsets: KafkaOffsetRangeLimit, fail_on_data_loss: bool, include_headers: bool,
                 max_offsets_per_trigger: int | None, poll_timeout_ms: int,
                 min_offsets_per_trigger: int | None = None,
                 max_trigger_delay_ms: int = DEFAULT_MAX_TRIGGER_DELAY_MS, *, time: Time) -> None:
        self.offset_reader = offset_reader
        self.executor_kafka_params = executor_kafka_params
        self.starting_offsets = starting_offsets
        self.fail_on_data_loss = fail_on_data_loss
        self.include_headers = include_headers
        self.max_offsets_per_trigger = max_offsets_per_trigger
        self.min_offsets_per_trigger = min_offsets_per_trigger
        self.max_trigger_delay_ms = max_trigger_delay_ms
        self.poll_timeout_ms = poll_timeout_ms
        self.time = time
        self.report_data_loss = data_loss_reporter(fail_on_data_loss, lambda message: log.warning(message))
        self.latest_partition_offsets: PartitionOffsetMap | None = None
        self.last_trigger_millis = 0  # when a batch last ran: 0, so the first trigger never waits
        # Trigger.AvailableNow: the log end offsets when the query started are the finish line.
        self.is_trigger_available_now = False
        self.all_data_for_trigger_available_now: PartitionOffsetMap | None = None

    # ------------------------------------------------------------------ where batches start and end
    def initialOffset(self) -> dict:
        limit, reader = self.starting_offsets, self.offset_reader
        if isinstance(limit, EarliestOffsetRangeLimit):
            offsets = reader.fetch_earliest_offsets()
        elif isinstance(limit, LatestOffsetRangeLimit):
            offsets = reader.fetch_latest_offsets()
        elif isinstance(limit, SpecificTimestampRangeLimit):
            offsets = reader.fetch_specific_timestamp_based_offsets(limit.topic_timestamps, True,
                                                                    limit.strategy_on_no_match)
        elif isinstance(limit, GlobalTimestampRangeLimit):
            offsets = reader.fetch_global_timestamp_based_offsets(limit.timestamp, True,
                                                                  limit.strategy_on_no_match)
        else:
            offsets = reader.fetch_specific_offsets(limit.partition_offsets, self.report_data_loss)
        log.info("initial offsets", offsets=json_utils.partition_offsets_json(offsets))
        return json_utils.partition_offsets_json(offsets)

    def getDefaultReadLimit(self) -> ReadLimit:
        # Spark would answer CompositeReadLimit(ReadMinRows, ReadMaxRows) when both are set; PySpark
        # has no composite, so Spark gets ReadMaxRows and latestOffset adds the minimum itself.
        if self.max_offsets_per_trigger is not None:
            return ReadMaxRows(self.max_offsets_per_trigger)
        if self.min_offsets_per_trigger is not None:
            return ReadMinRows(self.min_offsets_per_trigger)
        return ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        self.is_trigger_available_now = True

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        start_offsets = json_utils.partition_offsets(start, "start offset")
        if self.is_trigger_available_now:
            if self.all_data_for_trigger_available_now is None:
                self.all_data_for_trigger_available_now = self.offset_reader.fetch_latest_offsets()
            self.latest_partition_offsets = self.all_data_for_trigger_available_now
        else:
            self.latest_partition_offsets = self.offset_reader.fetch_latest_offsets()
        return json_utils.partition_offsets_json(self.end_offsets(start_offsets,
                                                                  self.latest_partition_offsets, limit))

    def end_offsets(self, start: PartitionOffsetMap, latest: PartitionOffsetMap,
                    limit: ReadLimit) -> PartitionOffsetMap:
        """Where this micro-batch ends under ``limit``: ``start`` itself means "no batch yet"."""
        if isinstance(limit, ReadAllAvailable):
            return latest  # ReadAllAvailable wins over every other limit, as in Spark
        min_rows = limit.min_rows if isinstance(limit, ReadMinRows) else self.min_offsets_per_trigger
        # Trigger.AvailableNow ends the query at the first trigger with nothing new: waiting for
        # more records there would end it with records unread (PySpark's ReadMinRows warns of it).
        if min_rows is not None and not self.is_trigger_available_now and self.delay_batch(min_rows, latest,
                                                                                           start):
            log.debug("delaying the batch: fewer records than minOffsetsPerTrigger")
            return start
        if isinstance(limit, ReadMaxRows):
            return self.rate_limit(limit.max_rows, start, latest)
        return latest

    def delay_batch(self, min_rows: int, latest: PartitionOffsetMap, start: PartitionOffsetMap) -> bool:
        """Whether to skip this trigger: fewer than ``min_rows`` new records, and the last batch ran
        less than ``maxTriggerDelay`` ago (Spark's KafkaMicroBatchStream.delayBatch)."""
        now = self.time.milliseconds()
        if now - self.last_trigger_millis >= self.max_trigger_delay_ms:
            self.last_trigger_millis = now
            return False
        new_records = sum(offset - start.get(tp, 0) for tp, offset in latest.items())
        if new_records < min_rows:
            return True
        self.last_trigger_millis = now
        return False

    def reportLatestOffset(self) -> dict | None:
        if not self.latest_partition_offsets:
            return None
        return json_utils.partition_offsets_json(self.latest_partition_offsets)

    def rate_limit(self, limit: int, start: PartitionOffsetMap,
                   until: PartitionOffsetMap) -> PartitionOffsetMap:
        """Share ``limit`` records among the partitions in proportion to how far behind each one is."""
        new_partitions = set(until) - set(start)
        begin = {**(self.offset_reader.fetch_earliest_offsets(new_partitions) if new_partitions else {}),
                 **start}
        sizes = {tp: end - begin[tp] for tp, end in until.items() if tp in begin and end - begin[tp] > 0}
        total = sum(sizes.values())
        if total < 1:
            return until
        limited = {}
        for tp, end in until.items():
            if tp not in sizes:
                limited[tp] = end
                continue
            share = limit * sizes[tp] / total
            # Round a share below one up, so that no partition is starved; round the others down.
            share = int(share) if share >= 1 else 1
            limited[tp] = min(end, begin[tp] + share)
        return limited

    # ------------------------------------------------------------------ planning and reading a batch
    def partitions(self, start: dict, end: dict) -> list[InputPartition]:
        start_offsets = json_utils.partition_offsets(start, "start offset")
        end_offsets = json_utils.partition_offsets(end, "end offset")
        ranges = self.offset_reader.get_offset_ranges_from_resolved_offsets(start_offsets, end_offsets,
                                                                            self.report_data_loss)
        return [KafkaBatchInputPartition(r, self.executor_kafka_params, self.poll_timeout_ms,
                                         self.fail_on_data_loss, self.include_headers) for r in ranges]

    def read(self, partition: InputPartition) -> Iterator[tuple]:
        return iter(KafkaBatchPartitionReader(partition))

    def commit(self, end: dict) -> None:
        """Nothing to do: the checkpoint, not Kafka, remembers what the query has read."""

    def stop(self) -> None:
        self.offset_reader.close()
