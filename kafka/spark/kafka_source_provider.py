"""KafkaSourceProvider: the ``kafka-teaching`` data source (Spark's kafka010.KafkaSourceProvider).

A PySpark Python data source with Spark's Kafka options and schema, so that a query can move to
Spark's own connector by changing only ``format("kafka-teaching")`` to ``format("kafka")``:

    spark.dataSource.register(KafkaSourceProvider)
    df = (spark.readStream.format("kafka-teaching")
          .option("kafka.bootstrap.servers", "127.0.0.1:9092").option("subscribe", "page-views").load())

This class only reads options and hands out readers and writers; Spark pickles it to every
process that needs one. Options are case-insensitive. ``kafka.*`` options go to the clients
without the prefix: to the AdminClient on the driver, the KafkaConsumer on executors, the
KafkaProducer in write tasks -- each takes the keys it knows; a key none of them knows is an error.
"""

from __future__ import annotations

from collections.abc import Mapping

import structlog
from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
)
from pyspark.sql.types import StructType

from kafka.clients.client_config import ADMIN, CONSUMER, PRODUCER
from kafka.spark import json_utils
from kafka.spark.consumer_strategy import (
    AssignStrategy,
    ConsumerStrategy,
    SubscribePatternStrategy,
    SubscribeStrategy,
)
from kafka.spark.kafka_batch import KafkaBatch
from kafka.spark.kafka_micro_batch_stream import KafkaMicroBatchStream
from kafka.spark.kafka_offset_range_limit import (
    EARLIEST,
    LATEST,
    EarliestOffsetRangeLimit,
    LatestOffsetRangeLimit,
    SpecificOffsetRangeLimit,
    get_kafka_offset_range_limit,
)
from kafka.spark.kafka_offset_reader import KafkaOffsetReaderAdmin
from kafka.spark.kafka_record_to_row_converter import kafka_schema
from kafka.spark.kafka_streaming_write import KafkaBatchWrite, KafkaStreamingWrite

log = structlog.get_logger("kafka.spark.KafkaSourceProvider")

SHORT_NAME = "kafka-teaching"
STRATEGY_OPTION_KEYS = ("subscribe", "subscribepattern", "assign")
STARTING_OFFSETS_OPTION_KEY = "startingoffsets"
ENDING_OFFSETS_OPTION_KEY = "endingoffsets"
FAIL_ON_DATA_LOSS_OPTION_KEY = "failondataloss"
MAX_OFFSET_PER_TRIGGER = "maxoffsetspertrigger"
INCLUDE_HEADERS = "includeheaders"
CONSUMER_POLL_TIMEOUT = "kafkaconsumer.polltimeoutms"
TOPIC_OPTION_KEY = "topic"
DEFAULT_POLL_TIMEOUT_MS = 120000  # Spark's default is spark.network.timeout, 120 s
# Spark's Kafka options that this source does not implement: refused rather than silently ignored.
UNSUPPORTED_OPTIONS = ("minpartitions", "maxrecordsperpartition", "minoffsetspertrigger", "maxtriggerdelay",
                       "startingtimestamp", "endingtimestamp", "startingoffsetsbytimestamp",
                       "endingoffsetsbytimestamp", "startingoffsetsbytimestampstrategy", "groupidprefix")
UNSUPPORTED_KAFKA_PARAMS = {
    "auto.offset.reset": "Kafka option 'auto.offset.reset' is not supported. Instead set the source option "
                         "'startingOffsets' to 'earliest' or 'latest' to specify where to start.",
    "key.deserializer": "Kafka option 'key.deserializer' is not supported as keys are read as bytes. "
                        "Use DataFrame operations to explicitly deserialize the keys.",
    "value.deserializer": "Kafka option 'value.deserializer' is not supported as values are read as bytes. "
                          "Use DataFrame operations to explicitly deserialize the values.",
    "key.serializer": "Kafka option 'key.serializer' is not supported as keys are written as bytes or strings.",
    "value.serializer": "Kafka option 'value.serializer' is not supported as values are written as bytes or strings.",
    "enable.auto.commit": "Kafka option 'enable.auto.commit' is not supported",
    "interceptor.classes": "Kafka option 'interceptor.classes' is not supported",
}


class KafkaSourceProvider(DataSource):
    @classmethod
    def name(cls) -> str:
        return SHORT_NAME

    def schema(self) -> StructType:
        return kafka_schema(_bool(self.options, INCLUDE_HEADERS, False))

    def reader(self, schema: StructType) -> DataSourceReader:
        params = validate_batch_options(self.options)
        return KafkaBatch(
            strategy(params), kafka_params_for(params, ADMIN), kafka_params_for(params, CONSUMER),
            get_kafka_offset_range_limit(params, STARTING_OFFSETS_OPTION_KEY, EarliestOffsetRangeLimit()),
            get_kafka_offset_range_limit(params, ENDING_OFFSETS_OPTION_KEY, LatestOffsetRangeLimit()),
            _bool(params, FAIL_ON_DATA_LOSS_OPTION_KEY, True), _bool(params, INCLUDE_HEADERS, False),
            _positive_int(params, CONSUMER_POLL_TIMEOUT) or DEFAULT_POLL_TIMEOUT_MS)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        params = validate_stream_options(self.options)
        return KafkaMicroBatchStream(
            KafkaOffsetReaderAdmin(strategy(params), kafka_params_for(params, ADMIN)),
            kafka_params_for(params, CONSUMER),
            get_kafka_offset_range_limit(params, STARTING_OFFSETS_OPTION_KEY, LatestOffsetRangeLimit()),
            _bool(params, FAIL_ON_DATA_LOSS_OPTION_KEY, True), _bool(params, INCLUDE_HEADERS, False),
            _positive_int(params, MAX_OFFSET_PER_TRIGGER),
            _positive_int(params, CONSUMER_POLL_TIMEOUT) or DEFAULT_POLL_TIMEOUT_MS)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        if overwrite:
            raise ValueError("Save mode overwrite not allowed for Kafka. Allowed save modes are append "
                             "and errorifexists (default).")
        params = _lower(self.options)
        return KafkaBatchWrite(_topic(params), kafka_params_for(params, PRODUCER, required=True), schema)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        # Like Spark's sink, every output mode just appends records: Kafka cannot truncate a topic.
        params = _lower(self.options)
        return KafkaStreamingWrite(_topic(params), kafka_params_for(params, PRODUCER, required=True), schema)


# ---------------------------------------------------------------------------------- options


def _lower(options: Mapping[str, str]) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in options.items()}


def _bool(options: Mapping[str, str], key: str, default: bool) -> bool:
    value = str(options.get(key, default)).strip().lower()
    if value not in ("true", "false"):
        raise ValueError(f"option {key!r}: expected true or false, got {options.get(key)!r}")
    return value == "true"


def _positive_int(options: Mapping[str, str], key: str) -> int | None:
    if key not in options:
        return None
    try:
        value = int(str(options[key]).strip())
    except ValueError:
        raise ValueError(f"option {key!r}: expected a positive integer, got {options[key]!r}") from None
    if value <= 0:
        raise ValueError(f"option {key!r} must be positive, got {value}")
    return value


def _topic(params: Mapping[str, str]) -> str | None:
    topic = params.get(TOPIC_OPTION_KEY)
    return topic.strip() if topic is not None else None


def strategy(params: Mapping[str, str]) -> ConsumerStrategy:
    key = next(k for k in STRATEGY_OPTION_KEYS if k in params)
    value = params[key]
    if key == "assign":
        return AssignStrategy(tuple(json_utils.partitions(value, "assign")))
    if key == "subscribe":
        return SubscribeStrategy(tuple(t.strip() for t in value.split(",") if t.strip()))
    return SubscribePatternStrategy(value.strip())


def kafka_params_for(params: Mapping[str, str], client: Mapping, required: bool = False) -> dict[str, str]:
    """The ``kafka.*`` options one client takes, without the prefix."""
    kafka_params = {k[len("kafka."):]: v for k, v in params.items() if k.startswith("kafka.")}
    if required and "bootstrap.servers" not in kafka_params:
        raise ValueError("Option 'kafka.bootstrap.servers' must be specified for configuring Kafka producer")
    for key in kafka_params:
        if key in UNSUPPORTED_KAFKA_PARAMS:
            raise ValueError(UNSUPPORTED_KAFKA_PARAMS[key])
        if key not in ADMIN and key not in CONSUMER and key not in PRODUCER and key != "group.id":
            raise ValueError(f"unknown Kafka option 'kafka.{key}'")
    return {k: v for k, v in kafka_params.items() if k in client}


def validate_general_options(options: Mapping[str, str]) -> dict[str, str]:
    params = _lower(options)
    strategies = [k for k in STRATEGY_OPTION_KEYS if k in params]
    if not strategies:
        raise ValueError("One of the following options must be specified for Kafka source: subscribe, "
                         "subscribePattern, assign. See the docs for more details.")
    if len(strategies) > 1:
        raise ValueError("Only one of the following options can be specified for Kafka source: subscribe, "
                         "subscribePattern, assign. See the docs for more details.")
    value = params[strategies[0]]
    if strategies[0] == "assign" and not value.strip().startswith("{"):
        raise ValueError(f"No topicpartitions to assign as specified value for option 'assign' is '{value}'")
    if strategies[0] == "subscribe" and not any(t.strip() for t in value.split(",")):
        raise ValueError(f"No topics to subscribe to as specified value for option 'subscribe' is '{value}'")
    if strategies[0] == "subscribepattern" and not value.strip():
        raise ValueError(f"Pattern to subscribe is empty as specified value for option 'subscribePattern' is '{value}'")
    for key in UNSUPPORTED_OPTIONS:
        if key in params:
            raise ValueError(f"option {key!r} of Spark's Kafka source is not supported by {SHORT_NAME}")
    if "kafka.bootstrap.servers" not in params:
        raise ValueError("Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer")
    if "kafka.group.id" in params:
        log.warning("kafka.group.id is ignored: the query's offsets live in its checkpoint, not in a group")
    kafka_params_for(params, CONSUMER)  # refuse bad kafka.* keys now, not in a task
    _bool(params, FAIL_ON_DATA_LOSS_OPTION_KEY, True)
    _bool(params, INCLUDE_HEADERS, False)
    _positive_int(params, CONSUMER_POLL_TIMEOUT)
    if strategies[0] == "assign":
        json_utils.partitions(value, "assign")
    return params


def validate_stream_options(options: Mapping[str, str]) -> dict[str, str]:
    params = validate_general_options(options)
    if ENDING_OFFSETS_OPTION_KEY in params:
        raise ValueError("ending offset not valid in streaming queries")
    _positive_int(params, MAX_OFFSET_PER_TRIGGER)
    get_kafka_offset_range_limit(params, STARTING_OFFSETS_OPTION_KEY, LatestOffsetRangeLimit())
    return params


def validate_batch_options(options: Mapping[str, str]) -> dict[str, str]:
    params = validate_general_options(options)
    start = get_kafka_offset_range_limit(params, STARTING_OFFSETS_OPTION_KEY, EarliestOffsetRangeLimit())
    if isinstance(start, LatestOffsetRangeLimit):
        raise ValueError("starting offset can't be latest for batch queries on Kafka")
    if isinstance(start, SpecificOffsetRangeLimit):
        for tp, offset in start.partition_offsets.items():
            if offset == LATEST:
                raise ValueError(f"startingOffsets for {tp} can't be latest for batch queries on Kafka")
    end = get_kafka_offset_range_limit(params, ENDING_OFFSETS_OPTION_KEY, LatestOffsetRangeLimit())
    if isinstance(end, EarliestOffsetRangeLimit):
        raise ValueError("ending offset can't be earliest for batch queries on Kafka")
    if isinstance(end, SpecificOffsetRangeLimit):
        for tp, offset in end.partition_offsets.items():
            if offset == EARLIEST:
                raise ValueError(f"ending offset for {tp} can't be earliest for batch queries on Kafka")
    if isinstance(start, SpecificOffsetRangeLimit) and isinstance(end, SpecificOffsetRangeLimit):
        if set(start.partition_offsets) != set(end.partition_offsets):
            raise ValueError("startingOffsets and endingOffsets must name the same topic-partitions")
        for tp, offset in start.partition_offsets.items():
            if offset >= 0 and end.partition_offsets[tp] >= 0 and offset > end.partition_offsets[tp]:
                raise ValueError(f"startingOffsets for {tp} ({offset}) is after its endingOffsets "
                                 f"({end.partition_offsets[tp]})")
    if MAX_OFFSET_PER_TRIGGER in params:
        log.warning("maxOffsetsPerTrigger option ignored in batch queries")
    return params
