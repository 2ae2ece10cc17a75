"""SharePartitionKey: a share group's claim on one topic partition (Kafka's
org.apache.kafka.server.share.SharePartitionKey).

The share coordinator keeps one state per (group id, topic id, partition). Its key as a string,
``group:topicId:partition`` with the topic id in Kafka's base64 form, is what FindCoordinator (key
type 2, SHARE) carries and what picks the __share_group_state partition: Java's String.hashCode of
that string, Utils.abs, modulo share.coordinator.state.topic.num.partitions, as for a group id and
__consumer_offsets. A group id may itself hold ':'; the topic id and partition are the last two parts.
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from dataclasses import dataclass

from kafka.utils.java_hash import java_string_hash, kafka_abs
from kafka.utils.uuid import uuid_to_string

SHARE_GROUP_STATE_TOPIC_NAME = "__share_group_state"
_JAVA_INT = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True)
class SharePartitionKey:
    group_id: str
    topic_id: uuid.UUID
    partition: int

    def as_coordinator_key(self) -> str:
        return f"{self.group_id}:{uuid_to_string(self.topic_id)}:{self.partition}"

    def partition_for(self, num_partitions: int) -> int:
        """Which __share_group_state partition holds this key (Kafka's
        ShareCoordinatorService.partitionFor)."""
        return kafka_abs(java_string_hash(self.as_coordinator_key())) % num_partitions

    @classmethod
    def parse(cls, key: str) -> SharePartitionKey:
        """Kafka's SharePartitionKey.getInstance(String): raises ValueError on a malformed key, which
        FindCoordinator answers INVALID_REQUEST."""
        if not key:
            raise ValueError("Share partition key cannot be empty")
        tokens = key.split(":")
        while tokens and tokens[-1] == "":  # Java's String.split drops trailing empty strings
            tokens.pop()
        if len(tokens) < 3:
            raise ValueError(f"Invalid key format: expected - groupId:topicId:partition, found - {key}")
        group_id = ":".join(tokens[:-2])
        if not group_id.strip():
            raise ValueError("GroupId must not be empty")
        try:
            raw = base64.b64decode(tokens[-2] + "=" * (-len(tokens[-2]) % 4), altchars=b"-_", validate=True)
            if len(raw) != 16:
                raise ValueError("not 16 bytes")
            topic_id = uuid.UUID(bytes=raw)
        except (ValueError, binascii.Error) as e:
            raise ValueError(f"Invalid topic ID: {tokens[-2]}") from e
        if not _JAVA_INT.fullmatch(tokens[-1]) or not -(2**31) <= int(tokens[-1]) < 2**31:  # Integer.parseInt
            raise ValueError(f"Invalid partition: {tokens[-1]}")
        partition = int(tokens[-1])
        return cls(group_id, topic_id, partition)

    def __str__(self) -> str:
        return self.as_coordinator_key()
