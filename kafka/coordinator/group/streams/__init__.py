"""Streams groups (KIP-1071): Kafka's org.apache.kafka.coordinator.group.streams."""
