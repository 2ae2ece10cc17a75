"""DescribeLogDirs (key 35): each log directory of a broker, its partitions and their sizes (KIP-113).

Mirrors ``common/message/DescribeLogDirsRequest.json`` and ``...Response.json`` (versions 0-5,
flexible from 2; the top-level error_code from 3, total_bytes and usable_bytes from 4, is_cordoned from 5,
KIP-1066). What
``kafka-log-dirs.sh --describe`` and the Java Admin's describeLogDirs print. A null ``topics``
asks for every partition. v0 is not advertised: Kafka 4 dropped it (KIP-896).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, Int64, String

DESCRIBABLE_LOG_DIR_TOPIC = Schema(
    "DescribableLogDirTopic",
    Field("topic", String, "0+"),
    Field("partitions", Array(Int32), "0+"),
)

DESCRIBE_LOG_DIRS_REQUEST = Schema(
    "DescribeLogDirsRequest",
    Field("topics", Array(DESCRIBABLE_LOG_DIR_TOPIC), "0+", nullable_versions="0+"),
)

DESCRIBE_LOG_DIRS_PARTITION = Schema(
    "DescribeLogDirsPartition",
    Field("partition_index", Int32, "0+"),
    Field("partition_size", Int64, "0+"),
    Field("offset_lag", Int64, "0+"),
    Field("is_future_key", Boolean, "0+"),
)

DESCRIBE_LOG_DIRS_TOPIC = Schema(
    "DescribeLogDirsTopic",
    Field("name", String, "0+"),
    Field("partitions", Array(DESCRIBE_LOG_DIRS_PARTITION), "0+"),
)

DESCRIBE_LOG_DIRS_RESULT = Schema(
    "DescribeLogDirsResult",
    Field("error_code", Int16, "0+"),
    Field("log_dir", String, "0+"),
    Field("topics", Array(DESCRIBE_LOG_DIRS_TOPIC), "0+"),
    Field("total_bytes", Int64, "4+", default=-1, ignorable=True),
    Field("usable_bytes", Int64, "4+", default=-1, ignorable=True),
    Field("is_cordoned", Boolean, "5+", default=False, ignorable=True),
)

DESCRIBE_LOG_DIRS_RESPONSE = Schema(
    "DescribeLogDirsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "3+", ignorable=True),
    Field("results", Array(DESCRIBE_LOG_DIRS_RESULT), "0+"),
)

DESCRIBE_LOG_DIRS = register(
    Api(ApiKey.DESCRIBE_LOG_DIRS, "DescribeLogDirs", 1, 5, 2, DESCRIBE_LOG_DIRS_REQUEST,
        DESCRIBE_LOG_DIRS_RESPONSE)
)
