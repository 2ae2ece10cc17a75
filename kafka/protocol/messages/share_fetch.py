"""ShareFetch (key 78): KIP-932's fetch for share groups, records acquired rather than read.

Mirrors ``common/message/ShareFetchRequest.json`` and ``ShareFetchResponse.json`` (versions 1-2 in
Apache Kafka 4.4, flexible throughout; version 0 was the early-access protocol and is gone). A member
of a share group names the partitions of its share session (epoch 0 opens it, -1 closes it, each
request after the first carries the next epoch), may acknowledge what it received before
(piggybacked acknowledgement batches), and gets back record batches together with the ranges of
offsets it has *acquired*: a lock on each of those records, for the acquisition lock timeout the
response states, with how many times each was delivered. v2 adds the acquire mode (KIP-1206:
0 batch_optimized, 1 record_limit) and renew acknowledgements (KIP-1222: acknowledge type 4 extends
a lock, and a request with ``is_renew_ack`` only renews, it does not fetch).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int8, Int16, Int32, Int64, Records, String, Uuid

ACKNOWLEDGEMENT_BATCH = Schema(
    "AcknowledgementBatch",
    Field("first_offset", Int64, "0+"),
    Field("last_offset", Int64, "0+"),
    Field("acknowledge_types", Array(Int8), "0+"),  # 0 gap, 1 accept, 2 release, 3 reject, 4 renew (v2)
)

FETCH_PARTITION = Schema(
    "FetchPartition",
    Field("partition_index", Int32, "0+"),
    Field("acknowledgement_batches", Array(ACKNOWLEDGEMENT_BATCH), "0+"),
)

FETCH_TOPIC = Schema(
    "FetchTopic",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(FETCH_PARTITION), "0+"),
)

FORGOTTEN_TOPIC = Schema(
    "ForgottenTopic",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(Int32), "0+"),
)

SHARE_FETCH_REQUEST = Schema(
    "ShareFetchRequest",
    Field("group_id", String, "1+", nullable_versions="1+", default=None),
    Field("member_id", String, "1+", nullable_versions="1+", default=""),
    Field("share_session_epoch", Int32, "1+"),  # 0 opens the share session, -1 closes it
    Field("max_wait_ms", Int32, "1+"),
    Field("min_bytes", Int32, "1+"),
    Field("max_bytes", Int32, "1+", default=0x7FFFFFFF),
    Field("max_records", Int32, "1+"),
    Field("batch_size", Int32, "1+"),
    Field("share_acquire_mode", Int8, "2+", default=0, ignorable=True),  # 0 batch_optimized, 1 record_limit
    Field("is_renew_ack", Boolean, "2+", default=False),
    Field("topics", Array(FETCH_TOPIC), "1+"),
    Field("forgotten_topics_data", Array(FORGOTTEN_TOPIC), "1+"),
)

LEADER_ID_AND_EPOCH = Schema(  # no defaults in Kafka's JSON: 0 and 0, where Fetch's are -1
    "LeaderIdAndEpoch",
    Field("leader_id", Int32, "0+"),
    Field("leader_epoch", Int32, "0+"),
)

ACQUIRED_RECORDS = Schema(
    "AcquiredRecords",
    Field("first_offset", Int64, "0+"),
    Field("last_offset", Int64, "0+"),
    Field("delivery_count", Int16, "0+"),
)

PARTITION_DATA = Schema(
    "PartitionData",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("acknowledge_error_code", Int16, "0+"),
    Field("acknowledge_error_message", String, "0+", nullable_versions="0+", default=None),
    Field("current_leader", LEADER_ID_AND_EPOCH, "0+"),
    Field("records", Records, "0+"),
    Field("acquired_records", Array(ACQUIRED_RECORDS), "0+"),
)

SHARE_FETCHABLE_TOPIC_RESPONSE = Schema(
    "ShareFetchableTopicResponse",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(PARTITION_DATA), "0+"),
)

NODE_ENDPOINT = Schema(
    "NodeEndpoint",
    Field("node_id", Int32, "0+"),
    Field("host", String, "0+"),
    Field("port", Int32, "0+"),
    Field("rack", String, "0+", nullable_versions="0+", default=None),
)

SHARE_FETCH_RESPONSE = Schema(
    "ShareFetchResponse",
    Field("throttle_time_ms", Int32, "1+"),
    Field("error_code", Int16, "1+"),
    Field("error_message", String, "1+", nullable_versions="1+", default=None),
    Field("acquisition_lock_timeout_ms", Int32, "1+"),
    Field("responses", Array(SHARE_FETCHABLE_TOPIC_RESPONSE), "1+"),
    Field("node_endpoints", Array(NODE_ENDPOINT), "1+"),
)

SHARE_FETCH = register(Api(ApiKey.SHARE_FETCH, "ShareFetch", 1, 2, 0, SHARE_FETCH_REQUEST,
                           SHARE_FETCH_RESPONSE))
