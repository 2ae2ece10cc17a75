"""KafkaRecordToRowConverter: the fixed schema of a Kafka source and one row per record (Spark's class).

The columns are Spark's Kafka source's, in its order, so that a query written against one works
against the other: key and value stay bytes (deserialising is the query's business, with
``cast`` or ``from_json``), ``timestamp`` is the record's timestamp and ``timestampType`` says
whose it is: 0 the producer's (CreateTime), 1 the broker's (LogAppendTime).

Spark's converter makes an UnsafeRow per record. Here the executor hands Spark a
``pyarrow.RecordBatch`` per fetch instead (``to_arrow_batch``), built from the columns that
record_batch_columns.py decoded: key and value bytes are copied out of the fetched data by Arrow
in one call per column, and ``topic`` and ``partition`` are the same value repeated. ``to_row``
is the one-record form of the same thing, for a reader that has ConsumerRecords.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.pandas.types import to_arrow_schema
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
from kafka.spark.record_batch_columns import RecordColumns, Slices

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


def kafka_arrow_schema(include_headers: bool = False) -> pa.Schema:
    """The Arrow form of ``kafka_schema``, exactly as PySpark checks a data source's batches against."""
    return to_arrow_schema(kafka_schema(include_headers), timezone="UTC")


def binary_array(data: bytes, slices: Slices) -> pa.Array:
    """Arrow binary values cut out of ``data`` (a length of -1 is a null) with one copy.

    The values sit in ``data`` in order with other fields between them, so ``data`` is first seen,
    without copying, as an array that alternates value, gap, value, gap...; ``take`` of every
    other element then copies the values into a fresh array (in C++).
    """
    n = len(slices.starts)
    if n == 0:
        return pa.array([], pa.binary())
    lengths = np.maximum(slices.lengths, 0)
    bounds = np.empty(2 * n, np.int32)
    bounds[0::2], bounds[1::2] = slices.starts, slices.starts + lengths
    valid = np.ones(2 * n - 1, bool)
    valid[0::2] = slices.lengths >= 0
    validity = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
    interleaved = pa.Array.from_buffers(pa.binary(), 2 * n - 1,
                                        [validity, pa.py_buffer(bounds), pa.py_buffer(data)])
    return pc.take(interleaved, pa.array(np.arange(0, 2 * n, 2, dtype=np.int32)))


def headers_array(columns: RecordColumns, schema: pa.Schema) -> pa.Array:
    counts = columns.header_counts
    list_offsets = np.zeros(len(counts) + 1, np.int32)
    np.cumsum(counts, out=list_offsets[1:])
    entry_type = schema.field("headers").type.value_type
    entries = pa.StructArray.from_arrays(
        [binary_array(columns.data,
                      Slices(columns.header_keys.starts, np.maximum(columns.header_keys.lengths, 0)))
         .cast(pa.string()),  # a header key is never null: Kafka reads a missing one as ""
         binary_array(columns.data, columns.header_values)], fields=list(entry_type))
    return pa.ListArray.from_arrays(pa.array(list_offsets), entries, type=schema.field("headers").type)


def to_arrow_batch(columns: RecordColumns, topic: str, partition: int, include_headers: bool = False,
                   schema: pa.Schema | None = None) -> pa.RecordBatch:
    """One Arrow record batch in ``kafka_schema``'s columns from decoded records of one partition."""
    schema = schema or kafka_arrow_schema(include_headers)
    n = len(columns)
    arrays = [
        binary_array(columns.data, columns.keys),
        binary_array(columns.data, columns.values),
        pa.repeat(pa.scalar(topic, pa.string()), n),
        pa.array(np.full(n, partition, np.int32)),
        pa.array(columns.offsets),
        pa.array(columns.timestamps * 1000, schema.field("timestamp").type),  # ms -> us
        pa.array(columns.log_append_time.astype(np.int32)),  # 1 LogAppendTime, 0 CreateTime
    ]
    if include_headers:
        arrays.append(headers_array(columns, schema))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
