"""DescribeProducers (key 61): the producers with state on a partition (KIP-664).

Mirrors ``common/message/DescribeProducersRequest.json`` and ``...Response.json`` (version 0,
flexible). What ``kafka-transactions.sh describe-producers`` and the Java Admin's describeProducers
ask: for each partition, the idempotent producers its ProducerStateManager remembers (id, epoch,
last sequence, last timestamp), as any replica hosting it knows them.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String

TOPIC_REQUEST = Schema(
    "TopicRequest",
    Field("name", String, "0+"),
    Field("partition_indexes", Array(Int32), "0+"),
)

DESCRIBE_PRODUCERS_REQUEST = Schema(
    "DescribeProducersRequest",
    Field("topics", Array(TOPIC_REQUEST), "0+"),
)

PRODUCER_STATE = Schema(
    "ProducerState",
    Field("producer_id", Int64, "0+"),
    Field("producer_epoch", Int32, "0+"),
    Field("last_sequence", Int32, "0+", default=-1),
    Field("last_timestamp", Int64, "0+", default=-1),
    Field("coordinator_epoch", Int32, "0+"),
    Field("current_txn_start_offset", Int64, "0+", default=-1),
)

PARTITION_RESPONSE = Schema(
    "PartitionResponse",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("active_producers", Array(PRODUCER_STATE), "0+"),
)

TOPIC_RESPONSE = Schema(
    "TopicResponse",
    Field("name", String, "0+"),
    Field("partitions", Array(PARTITION_RESPONSE), "0+"),
)

DESCRIBE_PRODUCERS_RESPONSE = Schema(
    "DescribeProducersResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("topics", Array(TOPIC_RESPONSE), "0+"),
)

DESCRIBE_PRODUCERS = register(
    Api(ApiKey.DESCRIBE_PRODUCERS, "DescribeProducers", 0, 0, 0,
        DESCRIBE_PRODUCERS_REQUEST, DESCRIBE_PRODUCERS_RESPONSE)
)
