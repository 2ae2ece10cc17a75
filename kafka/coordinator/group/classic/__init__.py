"""Classic groups: the JoinGroup/SyncGroup protocol on the coordinator runtime (Kafka's
org.apache.kafka.coordinator.group.classic, with the classic half of its GroupMetadataManager)."""
