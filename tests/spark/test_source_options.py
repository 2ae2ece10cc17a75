"""Spark's read options without a SparkSession: parsing and refusals, the read limits of a micro-batch
(with a mock clock), and the driver's offset reader against a real broker (timestamps, read_committed).
"""

from __future__ import annotations

import re

import pytest
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows, ReadMinRows
from structlog.testing import capture_logs

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.producer import KafkaProducer
from kafka.spark import kafka_source_provider as provider
from kafka.spark.consumer_strategy import SubscribeStrategy
from kafka.spark.kafka_micro_batch_stream import KafkaMicroBatchStream
from kafka.spark.kafka_offset_range_limit import (
    EarliestOffsetRangeLimit,
    GlobalTimestampRangeLimit,
    SpecificOffsetRangeLimit,
    SpecificTimestampRangeLimit,
    StrategyOnNoMatchStartingOffset,
)
from kafka.spark.kafka_offset_reader import KafkaOffsetReaderAdmin
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition as TP
from tests.helpers import unique_topic, wait_until

BOOTSTRAP = {"kafka.bootstrap.servers": "127.0.0.1:9"}
BASE_MS = 1_700_000_000_000


# ---------------------------------------------------------------------------------- option parsing


@pytest.mark.parametrize(("validate", "options", "message"), [
    # Bad input at query start: each error names the option.
    (provider.validate_stream_options, {"startingTimestamp": "yesterday"},
     "option 'startingTimestamp': Expected a single long value, got yesterday"),
    (provider.validate_batch_options, {"endingTimestamp": "12:00"},
     "option 'endingTimestamp': Expected a single long value, got 12:00"),
    (provider.validate_batch_options, {"startingOffsetsByTimestamp": '{"t":{"0":"noon"}}'},
     "option 'startingOffsetsByTimestamp': bad partition/offset '0': 'noon'"),
    (provider.validate_stream_options, {"minPartitions": "0"}, "minPartitions must be positive"),
    (provider.validate_batch_options, {"minPartitions": "many"},
     "option 'minPartitions': expected a positive integer"),
    (provider.validate_batch_options, {"maxRecordsPerPartition": "-5"},
     "maxRecordsPerPartition must be positive"),
    (provider.validate_stream_options, {"minOffsetsPerTrigger": "0"},
     "minOffsetsPerTrigger must be positive"),
    (provider.validate_stream_options, {"minOffsetsPerTrigger": "20", "maxOffsetsPerTrigger": "10"},
     "The value of minOffsetPerTrigger(20) is higher than the maxOffsetsPerTrigger(10)."),
    (provider.validate_stream_options, {"maxTriggerDelay": "soon"},
     "option 'maxTriggerDelay': expected a time"),
    (provider.validate_stream_options, {"startingOffsetsByTimestampStrategy": "earliest"},
     "option 'startingOffsetsByTimestampStrategy': expected error or latest"),
    (provider.validate_stream_options, {"endingTimestamp": "1"},
     "ending timestamp not valid in streaming queries"),
    (provider.validate_stream_options, {"endingOffsetsByTimestamp": '{"t":{"0":1}}'},
     "ending timestamp not valid in streaming queries"),
    (provider.validate_batch_options, {"startingOffsetsByTimestamp": '{"t":{"0":9}}',
                                       "endingOffsetsByTimestamp": '{"t":{"0":3}}'},
     "startingOffsetsByTimestamp for t-0 (9) is after its endingOffsetsByTimestamp (3)"),
    # What Spark refuses, with Spark's words.
    (provider.validate_stream_options, {"kafka.key.deserializer": "x"},
     "Kafka option 'key.deserializer' is not supported as keys are deserialized as byte arrays with "
     "ByteArrayDeserializer. Use DataFrame operations to explicitly deserialize the keys."),
    (provider.validate_batch_options, {"kafka.value.deserializer": "x"},
     "Kafka option 'value.deserializer' is not"),
    (provider.validate_stream_options, {"kafka.enable.auto.commit": "true"},
     "Kafka option 'enable.auto.commit' is not supported"),
    (provider.validate_stream_options, {"kafka.interceptor.classes": "x"},
     "Kafka option 'interceptor.classes' is not supported"),
    (provider.validate_stream_options, {"kafka.auto.offset.reset": "earliest"},
     "Kafka option 'auto.offset.reset' is not supported.\nInstead set the source option 'startingoffsets'"),
    # A setting our clients know is checked now, naming the option.
    (provider.validate_stream_options, {"kafka.isolation.level": "read_some"},
     "option 'kafka.isolation.level'"),
])
def test_bad_options_fail_at_query_start_naming_the_option(validate, options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        validate({**BOOTSTRAP, "subscribe": "t", **options})


def test_the_sink_refuses_serializers_with_sparks_message():
    with pytest.raises(ValueError,
                       match=re.escape("Kafka option 'value.serializer' is not supported as value "
                                       "are serialized with ByteArraySerializer.")):
        provider.kafka_params_for_producer({**BOOTSTRAP, "kafka.value.serializer": "x"})


def test_timestamp_options_parse_in_sparks_order_of_preference():
    params = {"startingtimestamp": "5", "startingoffsetsbytimestamp": '{"t":{"0":1}}',
              "startingoffsets": "earliest"}
    assert provider.starting_offsets(params, None) == GlobalTimestampRangeLimit(5)
    del params["startingtimestamp"]
    params["startingoffsetsbytimestampstrategy"] = "LATEST"
    assert provider.starting_offsets(params, None) == SpecificTimestampRangeLimit(
        {TP("t", 0): 1}, StrategyOnNoMatchStartingOffset.LATEST)
    del params["startingoffsetsbytimestamp"]
    assert provider.starting_offsets(params, None) == EarliestOffsetRangeLimit()


@pytest.mark.parametrize(("text", "ms"), [("15m", 900_000), ("30s", 30_000), ("250", 250), ("250ms", 250),
                                          ("2h", 7_200_000), ("1d", 86_400_000), ("5min", 300_000)])
def test_max_trigger_delay_reads_sparks_time_strings(text, ms):
    assert provider.time_string_as_ms(text, "maxtriggerdelay") == ms


def test_kafka_settings_pass_through_to_the_clients_that_know_them():
    with capture_logs() as logs:
        params = provider.validate_stream_options({
            **BOOTSTRAP, "subscribe": "t", "kafka.group.id": "mine", "groupIdPrefix": "ignored",
            "kafka.isolation.level": "read_committed", "kafka.max.poll.records": "100",
            "kafka.client.id": "c",
            "kafka.security.protocol": "SASL_PLAINTEXT", "kafka.sasl.mechanism": "PLAIN",
            "kafka.metrics.num.samples": "2"})
    kafka_params = provider.specified_kafka_params(params)
    driver = provider.kafka_params_for_driver(kafka_params)
    executor = provider.kafka_params_for_executors(kafka_params, provider.streaming_unique_group_id(params))
    # our clients speak SASL and TLS
    security = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN"}
    assert driver == {"bootstrap.servers": "127.0.0.1:9", "client.id": "c",
                      "isolation.level": "read_committed",
                      **security}
    # kafka.group.id is honoured on the executors; positions stay Spark's (auto.offset.reset none).
    assert executor == {"bootstrap.servers": "127.0.0.1:9", "client.id": "c", "group.id": "mine",
                        "isolation.level": "read_committed", "max.poll.records": "100",
                        "auto.offset.reset": "none", "enable.auto.commit": "false", **security}
    warnings = " | ".join(e["event"] for e in logs if e["log_level"] == "warning")
    assert "Kafka option 'kafka.group.id' has been set on this query, it is not recommended" in warnings
    assert "Option groupIdPrefix will be ignored as option kafka.group.id has been set." in warnings
    assert "'kafka.metrics.num.samples' is passed on, but kafka.clients does not implement it" in warnings


def test_without_kafka_group_id_the_executors_get_a_group_of_their_own_named_by_group_id_prefix():
    params = provider.validate_batch_options({**BOOTSTRAP, "subscribe": "t", "groupIdPrefix": "audit"})
    executor = provider.kafka_params_for_executors({}, provider.batch_unique_group_id(params))
    assert re.fullmatch(r"audit-[0-9a-f-]{36}-executor", executor["group.id"])
    default = provider.kafka_params_for_executors({}, provider.streaming_unique_group_id({}))
    assert default["group.id"].startswith("spark-kafka-source-")


# ---------------------------------------------------------------------------------- read limits


class FixedOffsets:
    """An offset reader whose partitions never grow: the stream's arithmetic alone is under test."""

    def fetch_earliest_offsets(self, partitions=None):
        return {}


def stream(time, **kwargs) -> KafkaMicroBatchStream:
    return KafkaMicroBatchStream(FixedOffsets(), {}, EarliestOffsetRangeLimit(), True, False,
                                 kwargs.pop("max_offsets", None), 1000, time=time, **kwargs)


def test_min_offsets_per_trigger_waits_for_enough_records_or_max_trigger_delay():
    time = MockTime()
    s = stream(time, min_offsets_per_trigger=10, max_trigger_delay_ms=60_000)
    assert s.getDefaultReadLimit() == ReadMinRows(10)
    start = {TP("t", 0): 0, TP("t", 1): 0}
    # The first trigger runs at once (no batch ran yet), like Spark's lastTriggerMillis = 0.
    assert s.end_offsets(start, {TP("t", 0): 2, TP("t", 1): 1}, ReadMinRows(10)) == {TP("t", 0): 2,
                                                                                     TP("t", 1): 1}
    start = {TP("t", 0): 2, TP("t", 1): 1}
    few = {TP("t", 0): 6, TP("t", 1): 5}  # 8 new records: fewer than 10, so no batch
    assert s.end_offsets(start, few, ReadMinRows(10)) == start
    time.advance(59_999)
    assert s.end_offsets(start, few, ReadMinRows(10)) == start
    time.advance(1)  # maxTriggerDelay since the last batch: run with what there is
    assert s.end_offsets(start, few, ReadMinRows(10)) == few
    enough = {TP("t", 0): 12, TP("t", 1): 9}  # 10 new records: a batch at once
    assert s.end_offsets(few, enough, ReadMinRows(10)) == enough
    assert s.end_offsets(few, enough, ReadAllAvailable()) == enough


def test_min_and_max_offsets_per_trigger_together():
    time = MockTime()
    s = stream(time, max_offsets=10, min_offsets_per_trigger=4, max_trigger_delay_ms=1000)
    # PySpark has no CompositeReadLimit: the stream keeps the min
    assert s.getDefaultReadLimit() == ReadMaxRows(10)
    time.advance(5000)
    start = {TP("t", 0): 0}
    assert s.end_offsets(start, {TP("t", 0): 100}, ReadMaxRows(10)) == {TP("t", 0): 10}
    # 3 < 4: wait
    assert s.end_offsets({TP("t", 0): 10}, {TP("t", 0): 13}, ReadMaxRows(10)) == {TP("t", 0): 10}
    s.prepareForTriggerAvailableNow()  # availableNow never waits: it would stop with records unread
    assert s.end_offsets({TP("t", 0): 10}, {TP("t", 0): 13}, ReadMaxRows(10)) == {TP("t", 0): 13}


# ---------------------------------------------------------------------------------- against a broker


@pytest.fixture(scope="module")
def stamped_topic(spark_broker):
    """Two partitions, records stamped BASE + 1000 * i: partition 0 holds i = 0..9, partition 1 i = 5..9."""
    topic = unique_topic("ts")
    with AdminClient({"bootstrap.servers": spark_broker.bootstrap}) as admin:
        assert admin.create_topics([NewTopic(topic, 2, 1)]) == {topic: None}
    with KafkaProducer({"bootstrap.servers": spark_broker.bootstrap}) as producer:
        for partition, first in ((0, 0), (1, 5)):
            for i in range(first, 10):
                producer.send(topic, b"v%d" % i, partition=partition, timestamp_ms=BASE_MS + 1000 * i)
        producer.flush()
    return topic


def reader(bootstrap: str, topic: str, **params) -> KafkaOffsetReaderAdmin:
    return KafkaOffsetReaderAdmin(SubscribeStrategy((topic,)), {"bootstrap.servers": bootstrap, **params})


def test_timestamps_become_offsets_through_list_offsets(spark_broker, stamped_topic):
    r = reader(spark_broker.bootstrap, stamped_topic)
    tp0, tp1 = TP(stamped_topic, 0), TP(stamped_topic, 1)
    try:
        # The first record at or after BASE + 6.5 s: i = 7, offset 7 in partition 0 and 2 in partition 1.
        assert r.fetch_global_timestamp_based_offsets(BASE_MS + 6500, True,
                                                      StrategyOnNoMatchStartingOffset.ERROR) \
            == {tp0: 7, tp1: 2}
        assert r.fetch_specific_timestamp_based_offsets({tp0: BASE_MS, tp1: BASE_MS + 9000}, True,
                                                        StrategyOnNoMatchStartingOffset.ERROR) == {tp0: 0,
                                                                                                   tp1: 4}
        # Nothing that late: a start fails with Spark's message, or starts at latest; an end is latest.
        no_match = (f"No offset matched from request of topic-partition {stamped_topic}-0 "
                    f"and timestamp {BASE_MS + 10_000}.")
        with pytest.raises(ValueError, match=re.escape(no_match)):
            r.fetch_global_timestamp_based_offsets(BASE_MS + 10_000, True,
                                                   StrategyOnNoMatchStartingOffset.ERROR)
        assert r.fetch_global_timestamp_based_offsets(BASE_MS + 10_000, True,
                                                      StrategyOnNoMatchStartingOffset.LATEST) \
            == {tp0: 10, tp1: 5}
        assert r.fetch_global_timestamp_based_offsets(BASE_MS + 10_000, False,
                                                      StrategyOnNoMatchStartingOffset.ERROR) \
            == {tp0: 10, tp1: 5}
        # A batch from one timestamp to another, split by minPartitions.
        ranges = provider.range_calculator({"minpartitions": "4"})
        r.range_calculator = ranges
        got = r.get_offset_ranges_from_unresolved_offsets(GlobalTimestampRangeLimit(BASE_MS + 2000),
                                                          GlobalTimestampRangeLimit(BASE_MS + 8000))
        # 6 and 3 records: 4 * 3/9 rounds to one task for partition 1, partition 0 takes the other 3.
        assert [(x.topic_partition.partition, x.from_offset, x.until_offset) for x in got] == [
            (0, 2, 4), (0, 4, 6), (0, 6, 8), (1, 0, 3)]
    finally:
        r.close()


def test_offsets_json_naming_a_partition_the_topic_does_not_have_is_refused(spark_broker, stamped_topic):
    r = reader(spark_broker.bootstrap, stamped_topic)
    offsets = {TP(stamped_topic, 0): 0, TP(stamped_topic, 1): 0, TP(stamped_topic, 7): 0}
    message = (f"If startingOffsets contains specific offsets, you must specify all TopicPartitions.\n"
               f"Use -1 for latest, -2 for earliest.\nSpecified: {{{stamped_topic}-0, {stamped_topic}-1, "
               f"{stamped_topic}-7}} Assigned: {{{stamped_topic}-0, {stamped_topic}-1}}")
    try:
        with pytest.raises(ValueError, match=re.escape(message)):
            r.fetch_partition_offsets(SpecificOffsetRangeLimit(offsets), is_starting_offsets=True)
        with pytest.raises(ValueError, match=re.escape(message)):
            r.fetch_specific_offsets(offsets, lambda m: None)
    finally:
        r.close()


def test_read_committed_latest_is_the_last_stable_offset(spark_broker):
    topic = unique_topic("lso")
    with AdminClient({"bootstrap.servers": spark_broker.bootstrap}) as admin:
        assert admin.create_topics([NewTopic(topic, 1, 1)]) == {topic: None}
    committed, uncommitted = (reader(spark_broker.bootstrap, topic, **{"isolation.level": level})
                              for level in ("read_committed", "read_uncommitted"))
    producer = KafkaProducer({"bootstrap.servers": spark_broker.bootstrap,
                              "transactional.id": unique_topic("txn")})
    try:
        producer.init_transactions()
        producer.begin_transaction()
        for i in range(3):
            producer.send(topic, b"c%d" % i)
        producer.commit_transaction()  # offsets 0-2, the marker at 3
        producer.begin_transaction()
        producer.send(topic, b"open")
        producer.flush()  # offset 4, in a transaction still open
        assert committed.fetch_latest_offsets() == {TP(topic, 0): 4}
        assert uncommitted.fetch_latest_offsets() == {TP(topic, 0): 5}
        producer.abort_transaction()
        # The abort marker at 5 ends it. The coordinator answers EndTxn once the abort is in its log
        # and writes the markers after (Kafka's order), so the LSO moves a moment after abort returns.
        wait_until(lambda: committed.fetch_latest_offsets() == {TP(topic, 0): 6},
                   message="the LSO past the abort")
    finally:
        producer.close()
        committed.close()
        uncommitted.close()
