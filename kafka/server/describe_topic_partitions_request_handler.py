"""DescribeTopicPartitionsRequestHandler: the broker's answer to DescribeTopicPartitions (KIP-966), Kafka's
kafka.server.handlers.DescribeTopicPartitionsRequestHandler, which KafkaApis calls.

Metadata's answer for the admin client, read from the same MetadataCache, plus each partition's eligible
leader replicas and last known ELR (what `kafka-topics --describe` prints as Elr and LastKnownElr), in
pages: a response holds at most ResponsePartitionLimit partitions (capped by
max.request.partition.size.limit) and a cursor naming where the next request starts. The topics go in
name order. Asked for by name, a topic the principal may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED and
one that does not exist UNKNOWN_TOPIC_OR_PARTITION; asked for all topics (an empty list), those not
describable are left out without a word.
"""

from __future__ import annotations

from kafka.network.request_channel import Request
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.errors import Errors, InvalidRequestError
from kafka.server.auth_helper import AuthHelper
from kafka.server.metadata_cache import MetadataCache


class DescribeTopicPartitionsRequestHandler:
    def __init__(self, metadata_cache: MetadataCache, auth_helper: AuthHelper, config) -> None:
        self.metadata_cache = metadata_cache
        self.auth_helper = auth_helper
        self.config = config  # max.request.partition.size.limit

    def handle_describe_topic_partitions_request(self, request: Request) -> dict:
        """The response body; raises InvalidRequestError for a cursor the request cannot have."""
        req = request.body
        fetch_all_topics = not req.topics
        cursor = req.cursor
        cursor_topic = cursor.topic_name if cursor is not None else ""
        asked = self.metadata_cache.topic_names() if fetch_all_topics else [t.name for t in req.topics]
        topics = sorted({name for name in asked if name >= cursor_topic})
        if cursor is not None and not fetch_all_topics and cursor.topic_name not in topics:
            raise InvalidRequestError("DescribeTopicPartitionsRequest topic list should contain the cursor "
                                      f"topic: {cursor.topic_name}")
        if cursor is not None and cursor.partition_index < 0:
            raise InvalidRequestError("DescribeTopicPartitionsRequest cursor partition must be valid: "
                                      f"{cursor}")
        # Topics not describable are never looked up: their existence is not disclosed.
        authorized = [name for name in topics
                      if self.auth_helper.authorize(request, Op.DESCRIBE, Res.TOPIC, name)]
        limit = max(min(self.config.max_request_partition_size_limit, req.response_partition_limit), 1)
        response = self.metadata_cache.topic_metadata_for_describe_topic_response(
            authorized, request.listener,
            (cursor.topic_name, cursor.partition_index) if cursor is not None else None,
            limit, fetch_all_topics)
        for topic in response["topics"]:
            topic["topic_authorized_operations"] = self.auth_helper.authorized_operations(
                request, Res.TOPIC, topic["name"])
        if not fetch_all_topics:
            denied = set(topics) - set(authorized)
            response["topics"].extend(dict(error_code=Errors.TOPIC_AUTHORIZATION_FAILED, name=name,
                                           is_internal=False, partitions=[])
                                      for name in sorted(denied))
        return dict(throttle_time_ms=0, **response)
