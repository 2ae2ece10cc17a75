"""KafkaDataConsumer: read exactly the records of one offset range (Spark's
kafka010.consumer.KafkaDataConsumer).

This runs on an executor. It assigns itself the one partition (no group, nothing committed: the
offsets belong to Spark's checkpoint, not to Kafka), seeks to ``from_offset`` and polls until it
has passed ``until_offset - 1``. Records at or after ``until_offset`` are dropped, so two reads of
the same range give the same records even while producers keep appending.

It asks the consumer for whole record batches (``poll_batches``), not records: the reader decodes
them column by column (record_batch_columns.py). The consumer has already checked their CRCs and
left out what a user never sees -- transaction markers, and under ``isolation.level=read_committed``
the batches of aborted transactions -- and its position has stepped over those offsets and over
the gaps compaction leaves, so the range is done once the position reaches ``until_offset``.

When the range starts below the log start offset (retention deleted the records before the query
got to them), the broker answers OFFSET_OUT_OF_RANGE. Like Spark, this is *data loss*: with
``failOnDataLoss`` (the default) the task fails, otherwise reading goes on from the earliest offset
that is still there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from kafka.clients.consumer import KafkaConsumer
from kafka.clients.errors import KafkaError, KafkaTimeoutError
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import RecordBatch
from kafka.spark.kafka_offset_range import KafkaOffsetRange
from kafka.utils.time import Time

INSTRUCTION_FOR_FAIL_ON_DATA_LOSS_TRUE = (
    "Some data may have been lost because they are not available in Kafka any more; either the data was "
    "aged out by Kafka or the topic may have been deleted before all the data in the topic was processed. "
    "If you don't want your streaming query to fail on such cases, set the source option "
    "\"failOnDataLoss\" to \"false\".")


class DataLossError(RuntimeError):
    """Records a query should have read are gone (Spark raises IllegalStateException)."""


def data_loss_reporter(fail_on_data_loss: bool, warn: Callable[[str], None]) -> Callable[[str], None]:
    def report(message: str) -> None:
        if fail_on_data_loss:
            raise DataLossError(f"{message}. {INSTRUCTION_FOR_FAIL_ON_DATA_LOSS_TRUE}")
        warn(f"{message}. Some data may have been lost; failOnDataLoss is false, so the query goes on.")
    return report


class KafkaDataConsumer:
    def __init__(self, kafka_params: Mapping[str, str], time: Time) -> None:
        # Spark overrides these on executors too: positions come from the plan, never from Kafka.
        # group.id stays (kafka.group.id, or the query's own): with assign() and no commits it only
        # names the consumer to the broker, as in Spark.
        params = {**kafka_params, "auto.offset.reset": "none", "enable.auto.commit": "false"}
        self.consumer = KafkaConsumer(params, time=time)
        self.time = time

    def get_batches(self, offset_range: KafkaOffsetRange, poll_timeout_ms: int,
                    report_data_loss: Callable[[str], None]) -> Iterator[tuple[list[RecordBatch], int, int]]:
        """The record batches that hold ``[from_offset, until_offset)``, one poll at a time, each
        with the offsets to keep from it: ``(batches, from, until)``. A batch may start before
        ``from`` (a fetch returns whole batches) or run past ``until``."""
        tp, until = offset_range.topic_partition, offset_range.until_offset
        offset = offset_range.from_offset
        if offset >= until:
            return
        self.consumer.assign([tp])
        self.consumer.seek(tp, offset)
        deadline = self.time.hi_res_clock_ms() + poll_timeout_ms
        while offset < until:
            try:
                fetched = self.consumer.poll_batches(max(0,
                                                         min(1000, deadline - self.time.hi_res_clock_ms())))
            except KafkaError as e:
                if e.error != Errors.OFFSET_OUT_OF_RANGE:
                    raise
                offset = self._skip_lost_records(offset_range, offset, report_data_loss)
                continue
            batches = fetched.get(tp, [])
            if batches:
                yield batches, offset, until
            # The position is past these batches, and past markers, aborted transactions and the
            # gaps compaction leaves: records the range will never see.
            position = self.consumer.position(tp)
            if position > offset:
                offset = position
                deadline = self.time.hi_res_clock_ms() + poll_timeout_ms  # progress: a fresh timeout
            elif self.time.hi_res_clock_ms() >= deadline:
                raise KafkaTimeoutError(f"cannot fetch the record at offset {offset} of {tp} in "
                                        f"{poll_timeout_ms} ms (kafkaConsumer.pollTimeoutMs)")

    def _skip_lost_records(self, offset_range: KafkaOffsetRange, offset: int,
                           report_data_loss: Callable[[str], None]) -> int:
        tp = offset_range.topic_partition
        earliest = self.consumer.beginning_offsets([tp])[tp]
        report_data_loss(f"cannot fetch offset {offset} of {tp}: the "
                         f"earliest offset still there is {earliest}")
        next_offset = min(max(offset, earliest), offset_range.until_offset)
        self.consumer.seek(tp, next_offset)
        return next_offset

    def close(self) -> None:
        self.consumer.close()
