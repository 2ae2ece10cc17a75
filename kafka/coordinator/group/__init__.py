"""The group coordinator on Kafka 4's coordinator runtime (mirrors org.apache.kafka.coordinator.group).

GroupCoordinatorService routes a group id to the shard of its ``__consumer_offsets`` partition; the
GroupCoordinatorShard holds that partition's groups (GroupMetadataManager: classic groups in
``classic/``, KIP-848 consumer groups in ``modern/consumer/``) and committed offsets
(OffsetMetadataManager). Every change is written as records and answered when they commit.
"""
