"""ShareAcknowledge (key 79): KIP-932's acknowledgement of acquired records, without fetching more.

Mirrors ``common/message/ShareAcknowledgeRequest.json`` and ``ShareAcknowledgeResponse.json``
(versions 1-2 in Apache Kafka 4.4, flexible throughout). A share consumer sends it when it has
nothing to fetch but something to say about what it holds: each acknowledgement batch names a run
of offsets and one type for all of them, or one type per offset (0 gap, 1 accept, 2 release,
3 reject; 4 renew from v2, KIP-1222). It moves the share session's epoch on like a ShareFetch, and
epoch -1 closes the session, releasing whatever the member still holds. v2's response states the
acquisition lock timeout, so a renewing consumer knows how long its renewed locks last.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.messages.share_fetch import ACKNOWLEDGEMENT_BATCH, LEADER_ID_AND_EPOCH, NODE_ENDPOINT
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, String, Uuid

ACKNOWLEDGE_PARTITION = Schema(
    "AcknowledgePartition",
    Field("partition_index", Int32, "0+"),
    Field("acknowledgement_batches", Array(ACKNOWLEDGEMENT_BATCH), "0+"),
)

ACKNOWLEDGE_TOPIC = Schema(
    "AcknowledgeTopic",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(ACKNOWLEDGE_PARTITION), "0+"),
)

SHARE_ACKNOWLEDGE_REQUEST = Schema(
    "ShareAcknowledgeRequest",
    Field("group_id", String, "1+", nullable_versions="1+", default=None),
    Field("member_id", String, "1+", nullable_versions="1+", default=""),
    Field("share_session_epoch", Int32, "1+"),
    Field("is_renew_ack", Boolean, "2+", default=False),
    Field("topics", Array(ACKNOWLEDGE_TOPIC), "1+"),
)

PARTITION_DATA = Schema(
    "PartitionData",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("current_leader", LEADER_ID_AND_EPOCH, "0+"),
)

SHARE_ACKNOWLEDGE_TOPIC_RESPONSE = Schema(
    "ShareAcknowledgeTopicResponse",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(PARTITION_DATA), "0+"),
)

SHARE_ACKNOWLEDGE_RESPONSE = Schema(
    "ShareAcknowledgeResponse",
    Field("throttle_time_ms", Int32, "1+"),
    Field("error_code", Int16, "1+"),
    Field("error_message", String, "1+", nullable_versions="1+", default=None),
    Field("acquisition_lock_timeout_ms", Int32, "2+", default=0, ignorable=True),
    Field("responses", Array(SHARE_ACKNOWLEDGE_TOPIC_RESPONSE), "1+"),
    Field("node_endpoints", Array(NODE_ENDPOINT), "1+"),
)

SHARE_ACKNOWLEDGE = register(Api(ApiKey.SHARE_ACKNOWLEDGE, "ShareAcknowledge", 1, 2, 0,
                                 SHARE_ACKNOWLEDGE_REQUEST, SHARE_ACKNOWLEDGE_RESPONSE))
