"""SharePartitionKey: the key FindCoordinator carries for the share coordinator and the partition of
__share_group_state it picks, as Kafka 4.4 computes them (values from its SharePartitionKey)."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator.share.share_partition_key import SharePartitionKey

pytestmark = pytest.mark.fast

TOPIC_ID = uuid.UUID(int=12345678901234567890)


@pytest.mark.parametrize(("group_id", "key", "partition"), [
    ("g:1", "g:1:AAAAAAAAAACrVKmM6x8K0g:3", 5),
    ("grüße-☃", "grüße-☃:AAAAAAAAAACrVKmM6x8K0g:3", 38),
    ("share-group-𝄞", "share-group-𝄞:AAAAAAAAAACrVKmM6x8K0g:3", 11),  # a surrogate pair in Java's hash
])
def test_the_coordinator_key_and_its_partition_are_kafkas(group_id, key, partition):
    share_key = SharePartitionKey(group_id, TOPIC_ID, 3)
    assert share_key.as_coordinator_key() == key
    assert share_key.partition_for(50) == partition
    assert SharePartitionKey.parse(key) == share_key  # a group id may hold ':'


@pytest.mark.parametrize(("key", "message"), [
    ("", "Share partition key cannot be empty"),
    ("g:1", "Invalid key format"),
    (" :AAAAAAAAAACrVKmM6x8K0g:1", "GroupId must not be empty"),
    ("g:not-a-topic-id:1", "Invalid topic ID"),
    ("g:AAAAAAAAAACrVKmM6x8K0g:one", "Invalid partition"),
    ("g:AAAAAAAAAACrVKmM6x8K0g:9999999999", "Invalid partition"),
])
def test_a_malformed_key_is_refused(key, message):
    with pytest.raises(ValueError, match=message):
        SharePartitionKey.parse(key)
