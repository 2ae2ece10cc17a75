"""KafkaWriter: which columns a DataFrame needs to be written to Kafka (Spark's kafka010.KafkaWriter).

The writer takes the columns Spark's Kafka sink takes, by name: ``value`` (string or binary,
required), ``key`` (string or binary, optional), ``topic`` (string; the ``topic`` option wins
over it, and one of the two must be there), ``headers`` (array of key/value structs, optional)
and ``partition`` (int, optional: otherwise the producer's partitioner picks, murmur2 of the key).
Any other column is ignored. The check runs when the query is planned, before any record is sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql.types import BinaryType, DataType, IntegerType, StringType, StructType

from kafka.spark.kafka_record_to_row_converter import HEADERS_TYPE

TOPIC_ATTRIBUTE_NAME = "topic"
KEY_ATTRIBUTE_NAME = "key"
VALUE_ATTRIBUTE_NAME = "value"
HEADERS_ATTRIBUTE_NAME = "headers"
PARTITION_ATTRIBUTE_NAME = "partition"


@dataclass(frozen=True)
class KafkaWriteColumns:
    """Where each attribute sits in a row (None: absent), found once per query."""

    topic: int | None
    key: int | None
    value: int
    headers: int | None
    partition: int | None


def _column(schema: StructType, name: str, desired: tuple[DataType, ...]) -> int | None:
    for i, f in enumerate(schema.fields):
        if f.name == name:
            if not any(_same_type(f.dataType, d) for d in desired):
                allowed = " or ".join(d.simpleString() for d in desired)
                raise ValueError(f"{name} attribute unsupported type {f.dataType.simpleString()}. "
                                 f"{name} must be a(n) {allowed}")
            return i
    return None


def _same_type(a: DataType, b: DataType) -> bool:
    # Nullability does not matter for whether Kafka can take the column.
    return a.simpleString() == b.simpleString()


def validate_query(schema: StructType, topic: str | None) -> KafkaWriteColumns:
    topic_index = _column(schema, TOPIC_ATTRIBUTE_NAME, (StringType(),))
    if topic is None and topic_index is None:
        raise ValueError(f"topic option required when no '{TOPIC_ATTRIBUTE_NAME}' attribute is present. "
                         f"Use the topic option for setting a topic.")
    value_index = _column(schema, VALUE_ATTRIBUTE_NAME, (StringType(), BinaryType()))
    if value_index is None:
        raise ValueError(f"Required attribute '{VALUE_ATTRIBUTE_NAME}' not found")
    return KafkaWriteColumns(
        topic=None if topic is not None else topic_index,
        key=_column(schema, KEY_ATTRIBUTE_NAME, (StringType(), BinaryType())),
        value=value_index,
        headers=_column(schema, HEADERS_ATTRIBUTE_NAME, (HEADERS_TYPE,)),
        partition=_column(schema, PARTITION_ATTRIBUTE_NAME, (IntegerType(),)),
    )
