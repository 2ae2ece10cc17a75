"""KafkaSourceProvider: the ``kafka-teaching`` data source (Spark's kafka010.KafkaSourceProvider).

A PySpark Python data source with Spark's Kafka options and schema, so that a query can move to
Spark's own connector by changing only ``format("kafka-teaching")`` to ``format("kafka")``:

    spark.dataSource.register(KafkaSourceProvider)
    df = (spark.readStream.format("kafka-teaching")
          .option("kafka.bootstrap.servers", "127.0.0.1:9092").option("subscribe", "page-views").load())

This class only reads options and hands out readers and writers; Spark pickles it to every
process that needs one. Options are case-insensitive. ``kafka.*`` options go to the clients
without the prefix: to the AdminClient on the driver, the KafkaConsumer on executors, the
KafkaProducer in write tasks -- each takes the keys it knows. A Kafka setting none of them
implements is accepted and ignored, with a warning; only what Spark refuses is refused, with
Spark's message.
"""

from __future__ import annotations

import re
import uuid
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
from kafka.spark.kafka_offset_range_calculator import KafkaOffsetRangeCalculator
from kafka.spark.kafka_offset_range_limit import (
    EARLIEST,
    LATEST,
    OPTION_NAMES,
    EarliestOffsetRangeLimit,
    KafkaOffsetRangeLimit,
    LatestOffsetRangeLimit,
    SpecificOffsetRangeLimit,
    SpecificTimestampRangeLimit,
    get_kafka_offset_range_limit,
)
from kafka.spark.kafka_offset_reader import KafkaOffsetReaderAdmin
from kafka.spark.kafka_record_to_row_converter import kafka_schema
from kafka.spark.kafka_streaming_write import KafkaBatchWrite, KafkaStreamingWrite
from kafka.utils.time import SYSTEM

log = structlog.get_logger("kafka.spark.KafkaSourceProvider")

SHORT_NAME = "kafka-teaching"
STRATEGY_OPTION_KEYS = ("subscribe", "subscribepattern", "assign")
STARTING_OFFSETS_OPTION_KEY = "startingoffsets"
ENDING_OFFSETS_OPTION_KEY = "endingoffsets"
STARTING_OFFSETS_BY_TIMESTAMP_OPTION_KEY = "startingoffsetsbytimestamp"
ENDING_OFFSETS_BY_TIMESTAMP_OPTION_KEY = "endingoffsetsbytimestamp"
STARTING_TIMESTAMP_OPTION_KEY = "startingtimestamp"
ENDING_TIMESTAMP_OPTION_KEY = "endingtimestamp"
FAIL_ON_DATA_LOSS_OPTION_KEY = "failondataloss"
MIN_PARTITIONS_OPTION_KEY = "minpartitions"
MAX_RECORDS_PER_PARTITION_OPTION_KEY = "maxrecordsperpartition"
MAX_OFFSET_PER_TRIGGER = "maxoffsetspertrigger"
MIN_OFFSET_PER_TRIGGER = "minoffsetspertrigger"
MAX_TRIGGER_DELAY = "maxtriggerdelay"
DEFAULT_MAX_TRIGGER_DELAY = "15m"
GROUP_ID_PREFIX = "groupidprefix"
INCLUDE_HEADERS = "includeheaders"
CONSUMER_POLL_TIMEOUT = "kafkaconsumer.polltimeoutms"
TOPIC_OPTION_KEY = "topic"
DEFAULT_POLL_TIMEOUT_MS = 120000  # Spark's default is spark.network.timeout, 120 s

CUSTOM_GROUP_ID_ERROR_MESSAGE = (
    "Kafka option 'kafka.group.id' has been set on this query, it is not recommended to set this "
    "option. This option is unsafe to use since multiple concurrent queries or sources using the "
    "same group id will interfere with each other as they are part of the same consumer group. "
    "Restarted queries may also suffer interference from the previous run having the same group id. "
    "The user should have only one query per group id, and/or set the option "
    "'kafka.session.timeout.ms' to be very small so that the Kafka consumers from the previous query "
    "are marked dead by the Kafka group coordinator before the restarted query starts running.")
# What Spark's source refuses among the Kafka consumer's settings, with Spark's messages.
UNSUPPORTED_CONSUMER_PARAMS = {
    "auto.offset.reset": "Kafka option 'auto.offset.reset' is not supported.\nInstead set the source option "
                         "'startingoffsets' to 'earliest' or 'latest'\nto specify where to start. Structured "
                         "Streaming manages which offsets are consumed\ninternally, rather than relying on "
                         "the kafkaConsumer to do it. This will ensure that no\ndata is missed when new "
                         "topics/partitions are dynamically subscribed. Note that\n'startingoffsets' only "
                         "applies when a new Streaming query is started, and\nthat resuming will always pick "
                         "up from where the query left off. See the docs for more\ndetails.",
    "key.deserializer": "Kafka option 'key.deserializer' is not supported as keys are "
                        "deserialized as byte arrays with ByteArrayDeserializer. Use "
                        "DataFrame operations to explicitly deserialize the keys.",
    "value.deserializer": "Kafka option 'value.deserializer' is not supported as values are deserialized as "
                          "byte arrays with ByteArrayDeserializer. Use DataFrame operations to explicitly "
                          "deserialize the values.",
    "enable.auto.commit": "Kafka option 'enable.auto.commit' is not supported",
    "interceptor.classes": "Kafka option 'interceptor.classes' is not supported",
}
# ... and among the producer's, in the sink.
UNSUPPORTED_PRODUCER_PARAMS = {
    "key.serializer": "Kafka option 'key.serializer' is not supported as keys are serialized with "
                      "ByteArraySerializer.",
    "value.serializer": "Kafka option 'value.serializer' is not supported as value are serialized with "
                        "ByteArraySerializer.",
}
# Kafka settings that none of our clients implements, already warned about in this process.
_warned_ignored_kafka_params: set[str] = set()


class KafkaSourceProvider(DataSource):
    @classmethod
    def name(cls) -> str:
        return SHORT_NAME

    def schema(self) -> StructType:
        return kafka_schema(_bool(_lower(self.options), INCLUDE_HEADERS, False))

    def reader(self, schema: StructType) -> DataSourceReader:
        params = validate_batch_options(self.options)
        kafka_params = specified_kafka_params(params)
        return KafkaBatch(
            strategy(params), kafka_params_for_driver(kafka_params),
            kafka_params_for_executors(kafka_params, batch_unique_group_id(params)),
            starting_offsets(params, EarliestOffsetRangeLimit()), ending_offsets(params),
            _bool(params, FAIL_ON_DATA_LOSS_OPTION_KEY, True), _bool(params, INCLUDE_HEADERS, False),
            _positive_int(params, CONSUMER_POLL_TIMEOUT) or DEFAULT_POLL_TIMEOUT_MS, range_calculator(params))

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        params = validate_stream_options(self.options)
        kafka_params = specified_kafka_params(params)
        return KafkaMicroBatchStream(
            KafkaOffsetReaderAdmin(strategy(params), kafka_params_for_driver(kafka_params),
                                   range_calculator(params)),
            kafka_params_for_executors(kafka_params, streaming_unique_group_id(params)),
            starting_offsets(params, LatestOffsetRangeLimit()),
            _bool(params, FAIL_ON_DATA_LOSS_OPTION_KEY, True), _bool(params, INCLUDE_HEADERS, False),
            _positive_int(params, MAX_OFFSET_PER_TRIGGER),
            _positive_int(params, CONSUMER_POLL_TIMEOUT) or DEFAULT_POLL_TIMEOUT_MS,
            min_offsets_per_trigger=_positive_int(params, MIN_OFFSET_PER_TRIGGER),
            max_trigger_delay_ms=time_string_as_ms(params.get(MAX_TRIGGER_DELAY, DEFAULT_MAX_TRIGGER_DELAY),
                                                   MAX_TRIGGER_DELAY),
            time=SYSTEM)  # Spark builds the source: the real clock is chosen here, as Spark's SystemClock

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        if overwrite:
            raise ValueError("Save mode overwrite not allowed for Kafka. Allowed save modes are append "
                             "and errorifexists (default).")
        params = _lower(self.options)
        return KafkaBatchWrite(_topic(params), kafka_params_for_producer(params), schema)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        # Like Spark's sink, every output mode just appends records: Kafka cannot truncate a topic.
        params = _lower(self.options)
        return KafkaStreamingWrite(_topic(params), kafka_params_for_producer(params), schema)


# ---------------------------------------------------------------------------------- options


def _lower(options: Mapping[str, str]) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in options.items()}


def _name(key: str) -> str:
    """Spark's spelling of an option, for messages (options are case-insensitive)."""
    return OPTION_NAMES.get(key, key)


def _bool(options: Mapping[str, str], key: str, default: bool) -> bool:
    value = str(options.get(key, default)).strip().lower()
    if value not in ("true", "false"):
        raise ValueError(f"option {_name(key)!r}: expected true or false, got {options.get(key)!r}")
    return value == "true"


def _positive_int(options: Mapping[str, str], key: str) -> int | None:
    if key not in options:
        return None
    try:
        value = int(str(options[key]).strip())
    except ValueError:
        message = f"option {_name(key)!r}: expected a positive integer, got {options[key]!r}"
        raise ValueError(message) from None
    if value <= 0:
        raise ValueError(f"{_name(key)} must be positive (option {_name(key)!r} is {value})")
    return value


TIME_SUFFIXES_MS = {"us": 0.001, "ms": 1, "s": 1000, "m": 60_000, "min": 60_000, "h": 3_600_000,
                    "d": 86_400_000}


def time_string_as_ms(text: str, key: str) -> int:
    """``"15m"``, ``"30s"``, ``"500ms"`` or plain milliseconds (Spark's Utils.timeStringAsMs)."""
    match = re.fullmatch(r"(-?[0-9]+)([a-z]+)?", str(text).strip().lower())
    if match is None or (match.group(2) or "ms") not in TIME_SUFFIXES_MS:
        raise ValueError(f"option {_name(key)!r}: expected a time such as 15m, 30s or 500ms, got {text!r}")
    return int(int(match.group(1)) * TIME_SUFFIXES_MS[match.group(2) or "ms"])


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


def starting_offsets(params: Mapping[str, str], default: KafkaOffsetRangeLimit) -> KafkaOffsetRangeLimit:
    return get_kafka_offset_range_limit(params, STARTING_OFFSETS_OPTION_KEY, default,
                                        STARTING_TIMESTAMP_OPTION_KEY,
                                        STARTING_OFFSETS_BY_TIMESTAMP_OPTION_KEY)


def ending_offsets(params: Mapping[str, str]) -> KafkaOffsetRangeLimit:
    return get_kafka_offset_range_limit(params, ENDING_OFFSETS_OPTION_KEY, LatestOffsetRangeLimit(),
                                        ENDING_TIMESTAMP_OPTION_KEY, ENDING_OFFSETS_BY_TIMESTAMP_OPTION_KEY)


def range_calculator(params: Mapping[str, str]) -> KafkaOffsetRangeCalculator:
    return KafkaOffsetRangeCalculator(_positive_int(params, MIN_PARTITIONS_OPTION_KEY),
                                      _positive_int(params, MAX_RECORDS_PER_PARTITION_OPTION_KEY))


# ---------------------------------------------------------------------------------- kafka.* options


def specified_kafka_params(params: Mapping[str, str]) -> dict[str, str]:
    """Every ``kafka.*`` option, without the prefix: the settings a Spark user gives Kafka's clients."""
    return {k[len("kafka."):]: v for k, v in params.items() if k.startswith("kafka.")}


def check_kafka_params(kafka_params: Mapping[str, str]) -> None:
    """Values our clients know are parsed now, naming the option; keys none of them implements
    (``metrics.num.samples``, ``receive.buffer.bytes``, ...) are accepted, as Spark accepts
    them, and ignored, with a warning once per key."""
    for key, value in kafka_params.items():
        definition = CONSUMER.get(key) or PRODUCER.get(key) or ADMIN.get(key)
        if definition is None:
            if key not in _warned_ignored_kafka_params:
                _warned_ignored_kafka_params.add(key)
                log.warning(f"Kafka option 'kafka.{key}' is passed on, but kafka.clients does not implement "
                            "it: it is ignored", option=f"kafka.{key}")
            continue
        try:
            definition[0](value)
        except (TypeError, ValueError) as e:
            raise ValueError(f"option 'kafka.{key}': invalid value {value!r} ({e})") from None


def _known_to(client: Mapping, kafka_params: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in kafka_params.items() if k in client}


def kafka_params_for_driver(kafka_params: Mapping[str, str]) -> dict[str, str]:
    """The driver's AdminClient settings, and the isolation level its ListOffsets requests use."""
    driver = _known_to(ADMIN, kafka_params)
    if "isolation.level" in kafka_params:
        driver["isolation.level"] = kafka_params["isolation.level"]
    return driver


def kafka_params_for_executors(kafka_params: Mapping[str, str], unique_group_id: str) -> dict[str, str]:
    """The executors' KafkaConsumer settings. As in Spark, ``kafka.group.id`` is used when given,
    otherwise a group id of the query's own; positions and commits stay Spark's business."""
    executor = _known_to(CONSUMER, kafka_params)
    executor.setdefault("group.id", f"{unique_group_id}-executor")
    executor.update({"auto.offset.reset": "none", "enable.auto.commit": "false"})
    return executor


def kafka_params_for_producer(params: Mapping[str, str]) -> dict[str, str]:
    kafka_params = specified_kafka_params(params)
    for key, message in UNSUPPORTED_PRODUCER_PARAMS.items():
        if key in kafka_params:
            raise ValueError(message)
    if "bootstrap.servers" not in kafka_params:
        raise ValueError("Option 'kafka.bootstrap.servers' must be specified for configuring Kafka producer")
    check_kafka_params(kafka_params)
    return _known_to(PRODUCER, kafka_params)


def batch_unique_group_id(params: Mapping[str, str]) -> str:
    return f"{params.get(GROUP_ID_PREFIX, 'spark-kafka-relation')}-{uuid.uuid4()}"


def streaming_unique_group_id(params: Mapping[str, str]) -> str:
    # Spark adds the hash of the checkpoint path, which a Python data source is not told.
    return f"{params.get(GROUP_ID_PREFIX, 'spark-kafka-source')}-{uuid.uuid4()}"


# ---------------------------------------------------------------------------------- validation


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
        raise ValueError("Pattern to subscribe is empty as specified value "
                         f"for option 'subscribePattern' is '{value}'")
    range_calculator(params)  # minPartitions and maxRecordsPerPartition: positive integers
    if "kafka.group.id" in params:
        log.warning(CUSTOM_GROUP_ID_ERROR_MESSAGE)
        if GROUP_ID_PREFIX in params:
            log.warning("Option groupIdPrefix will be ignored as option kafka.group.id has been set.")
    kafka_params = specified_kafka_params(params)
    for key, message in UNSUPPORTED_CONSUMER_PARAMS.items():
        if key in kafka_params:
            raise ValueError(message)
    if "bootstrap.servers" not in kafka_params:
        raise ValueError("Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer")
    check_kafka_params(kafka_params)
    min_offsets = _positive_int(params, MIN_OFFSET_PER_TRIGGER)
    max_offsets = _positive_int(params, MAX_OFFSET_PER_TRIGGER)
    if min_offsets is not None and max_offsets is not None and min_offsets > max_offsets:
        raise ValueError(f"The value of minOffsetPerTrigger({min_offsets}) is higher than the "
                         f"maxOffsetsPerTrigger({max_offsets}).")
    _bool(params, FAIL_ON_DATA_LOSS_OPTION_KEY, True)
    _bool(params, INCLUDE_HEADERS, False)
    _positive_int(params, CONSUMER_POLL_TIMEOUT)
    if strategies[0] == "assign":
        json_utils.partitions(value, "assign")
    return params


def validate_stream_options(options: Mapping[str, str]) -> dict[str, str]:
    params = _lower(options)
    if ENDING_OFFSETS_OPTION_KEY in params:
        raise ValueError("ending offset not valid in streaming queries")
    if ENDING_OFFSETS_BY_TIMESTAMP_OPTION_KEY in params or ENDING_TIMESTAMP_OPTION_KEY in params:
        raise ValueError("ending timestamp not valid in streaming queries")
    params = validate_general_options(options)
    time_string_as_ms(params.get(MAX_TRIGGER_DELAY, DEFAULT_MAX_TRIGGER_DELAY), MAX_TRIGGER_DELAY)
    starting_offsets(params, LatestOffsetRangeLimit())
    return params


def validate_batch_options(options: Mapping[str, str]) -> dict[str, str]:
    params = _lower(options)
    start = starting_offsets(params, EarliestOffsetRangeLimit())
    if isinstance(start, LatestOffsetRangeLimit):
        raise ValueError("starting offset can't be latest for batch queries on Kafka")
    if isinstance(start, SpecificOffsetRangeLimit):
        for tp, offset in start.partition_offsets.items():
            if offset == LATEST:
                raise ValueError(f"startingOffsets for {tp} can't be latest for batch queries on Kafka")
    end = ending_offsets(params)
    if isinstance(end, EarliestOffsetRangeLimit):
        raise ValueError("ending offset can't be earliest for batch queries on Kafka")
    if isinstance(end, SpecificOffsetRangeLimit):
        for tp, offset in end.partition_offsets.items():
            if offset == EARLIEST:
                raise ValueError(f"ending offset for {tp} can't be earliest for batch queries on Kafka")
    params = validate_general_options(options)
    check_offset_limit_validity(start, end)
    for key in (MAX_OFFSET_PER_TRIGGER, MIN_OFFSET_PER_TRIGGER, MAX_TRIGGER_DELAY):
        if key in params:
            log.warning(f"{_name(key)} option ignored in batch queries")
    return params


def check_offset_limit_validity(start: KafkaOffsetRangeLimit, end: KafkaOffsetRangeLimit) -> None:
    """A batch's JSON starting and ending offsets (or timestamps) name the same partitions, in order."""
    if isinstance(start, SpecificOffsetRangeLimit) and isinstance(end, SpecificOffsetRangeLimit):
        starts, ends, what = start.partition_offsets, end.partition_offsets, ("startingOffsets",
                                                                              "endingOffsets")
    elif isinstance(start, SpecificTimestampRangeLimit) and isinstance(end, SpecificTimestampRangeLimit):
        starts, ends = start.topic_timestamps, end.topic_timestamps
        what = ("startingOffsetsByTimestamp", "endingOffsetsByTimestamp")
    else:
        return
    if set(starts) != set(ends):
        raise ValueError(f"{what[0]} and {what[1]} must name the same topic-partitions: "
                         f"{sorted(map(str, starts))} and {sorted(map(str, ends))}")
    for tp, offset in starts.items():
        # -2 and -1 (earliest, latest) are resolved later and not compared.
        if offset >= 0 and ends[tp] >= 0 and offset > ends[tp]:
            raise ValueError(f"{what[0]} for {tp} ({offset}) is after its {what[1]} ({ends[tp]})")
