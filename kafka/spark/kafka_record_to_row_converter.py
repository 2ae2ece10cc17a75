"""KafkaRecordToRowConverter: the fixed schema of a Kafka source and one row per record (Spark's class).

The columns are Spark's Kafka source's, in its order, so that a query written against one works
against the other: key and value stay bytes (deserialising is the query's business, with
``cast`` or ``from_json``), ``timestamp`` is the record's timestamp and ``timestampType`` says
whose it is: 0 the producer's (CreateTime), 1 the broker's (LogAppendTime).
"""

from __future__ import annotations

from datetime import UTC, datetime

from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from kafka.clients.consumer import ConsumerRecord
from kafka.clients.consumer.consumer_record import LOG_APPEND_TIME

HEADERS_TYPE = ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))


def kafka_schema(include_headers: bool = False) -> StructType:
    fields = [
        StructField("key", BinaryType()),
        StructField("value", BinaryType()),
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("offset", LongType()),
        StructField("timestamp", TimestampType()),
        StructField("timestampType", IntegerType()),
    ]
    if include_headers:
        fields.append(StructField("headers", HEADERS_TYPE))
    return StructType(fields)


def to_row(record: ConsumerRecord, include_headers: bool = False) -> tuple:
    row = (record.key, record.value, record.topic, record.partition, record.offset,
           datetime.fromtimestamp(record.timestamp / 1000, tz=UTC),
           1 if record.timestamp_type == LOG_APPEND_TIME else 0)
    if include_headers:
        row += ([(key, value) for key, value in record.headers],)
    return row
