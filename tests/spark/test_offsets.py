"""The driver's offset arithmetic, without Spark running: JSON order, option parsing, rate limiting."""

from __future__ import annotations

import json
import re

import pytest

from kafka.spark import json_utils
from kafka.spark.kafka_micro_batch_stream import KafkaMicroBatchStream
from kafka.spark.kafka_offset_range_limit import (
    EarliestOffsetRangeLimit,
    SpecificOffsetRangeLimit,
    get_kafka_offset_range_limit,
)
from kafka.spark.kafka_source_provider import validate_batch_options, validate_stream_options
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition as TP


def test_the_same_offsets_always_make_the_same_json():
    # Spark compares offsets as strings: insertion order must not matter, and partition 10 sorts after 2.
    a = {TP("b", 10): 5, TP("b", 2): 7, TP("a", 0): 1}
    b = dict(reversed(list(a.items())))
    expected = '{"a": {"0": 1}, "b": {"2": 7, "10": 5}}'
    assert json.dumps(json_utils.partition_offsets_json(a)) == expected
    assert json.dumps(json_utils.partition_offsets_json(b)) == expected
    assert json_utils.partition_offsets(json_utils.partition_offsets_json(a), "offset") == a


def test_offset_options_parse_like_sparks():
    assert get_kafka_offset_range_limit({}, "startingoffsets",
                                        EarliestOffsetRangeLimit()) == EarliestOffsetRangeLimit()
    limit = get_kafka_offset_range_limit({"startingoffsets": '{"t":{"0":23,"1":-2}}'}, "startingoffsets",
                                         None)
    assert limit == SpecificOffsetRangeLimit({TP("t", 0): 23, TP("t", 1): -2})
    with pytest.raises(ValueError, match="offset -3 for t-0"):
        get_kafka_offset_range_limit({"startingoffsets": '{"t":{"0":-3}}'}, "startingoffsets", None)
    assert json_utils.partitions('{"t":[1,0]}') == [TP("t", 0), TP("t", 1)]


class NoNewPartitions:
    def fetch_earliest_offsets(self, partitions):
        raise AssertionError("no partition is new")


def test_max_offsets_per_trigger_is_shared_in_proportion_and_starves_no_partition():
    stream = KafkaMicroBatchStream(NoNewPartitions(), {}, EarliestOffsetRangeLimit(), True, False, 10, 1000,
                                   time=MockTime())
    start = {TP("t", 0): 0, TP("t", 1): 100, TP("t", 2): 5}
    until = {TP("t", 0): 90, TP("t", 1): 110, TP("t", 2): 6}
    # 101 records behind: 10 * 90/101 -> 8, 10 * 10/101 -> 0.99, rounded up to 1, 10 * 1/101 -> 1.
    assert stream.rate_limit(10, start, until) == {TP("t", 0): 8, TP("t", 1): 101, TP("t", 2): 6}
    assert stream.rate_limit(1000, start, until) == until


@pytest.mark.parametrize(("validate", "options", "message"), [
    (validate_batch_options, {"subscribe": "t", "startingOffsets": "latest"}, "can't be latest for batch"),
    (validate_batch_options, {"subscribe": "t", "startingOffsets": '{"t":{"0":-1}}'},
     "for t-0 can't be latest"),
    (validate_batch_options, {"subscribe": "t", "endingOffsets": '{"t":{"0":-2}}'},
     "for t-0 can't be earliest"),
    (validate_batch_options,
     {"subscribe": "t", "startingOffsets": '{"t":{"0":9}}', "endingOffsets": '{"t":{"0":3}}'},
     "is after its endingOffsets"),
    (validate_stream_options, {"subscribe": "t", "endingOffsets": "latest"},
     "ending offset not valid in streaming"),
    (validate_stream_options, {"subscribe": "t", "maxOffsetsPerTrigger": "0"},
     "maxOffsetsPerTrigger must be positive"),
    (validate_stream_options, {"subscribe": "t", "assign": '{"t":[0]}'}, "Only one of the following options"),
    (validate_stream_options, {}, "One of the following options must be specified"),
    (validate_stream_options, {"assign": "t-0"}, "No topicpartitions to assign"),
    (validate_stream_options, {"subscribe": " , "}, "No topics to subscribe to"),
    (validate_stream_options, {"subscribe": "t", "kafka.auto.offset.reset": "earliest"},
     "'auto.offset.reset' is not"),
    (validate_stream_options, {"subscribe": "t", "failOnDataLoss": "maybe"},
     "'failOnDataLoss': expected true or false"),
    (validate_stream_options, {"subscribe": "t", "startingOffsets": "{not json"},
     "'startingOffsets': expected JSON"),
])
def test_bad_options_are_refused_with_a_message_that_names_them(validate, options, message):
    options = {"kafka.bootstrap.servers": "127.0.0.1:9", **options} if options else options
    with pytest.raises(ValueError, match=re.escape(message)):
        validate(options)
