"""DeleteRecords (key 21): move partitions' log start offsets forward ("delete everything before N").

Mirrors ``common/message/DeleteRecordsRequest.json`` and ``DeleteRecordsResponse.json`` (versions
0-2, flexible from 2). An offset of -1 means "up to the high watermark". The response's
low_watermark is the partition's new log start offset.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String

DELETE_RECORDS_PARTITION = Schema(
    "DeleteRecordsPartition",
    Field("partition_index", Int32, "0+"),
    Field("offset", Int64, "0+"),
)

DELETE_RECORDS_TOPIC = Schema(
    "DeleteRecordsTopic",
    Field("name", String, "0+"),
    Field("partitions", Array(DELETE_RECORDS_PARTITION), "0+"),
)

DELETE_RECORDS_REQUEST = Schema(
    "DeleteRecordsRequest",
    Field("topics", Array(DELETE_RECORDS_TOPIC), "0+"),
    Field("timeout_ms", Int32, "0+"),
)

DELETE_RECORDS_PARTITION_RESULT = Schema(
    "DeleteRecordsPartitionResult",
    Field("partition_index", Int32, "0+"),
    Field("low_watermark", Int64, "0+"),
    Field("error_code", Int16, "0+"),
)

DELETE_RECORDS_TOPIC_RESULT = Schema(
    "DeleteRecordsTopicResult",
    Field("name", String, "0+"),
    Field("partitions", Array(DELETE_RECORDS_PARTITION_RESULT), "0+"),
)

DELETE_RECORDS_RESPONSE = Schema(
    "DeleteRecordsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("topics", Array(DELETE_RECORDS_TOPIC_RESULT), "0+"),
)

DELETE_RECORDS = register(
    Api(ApiKey.DELETE_RECORDS, "DeleteRecords", 0, 2, 2, DELETE_RECORDS_REQUEST, DELETE_RECORDS_RESPONSE)
)
