"""The groups of the new protocols (Kafka's org.apache.kafka.coordinator.group.modern): KIP-848's
consumer groups in ``consumer/``, whose assignment the coordinator computes."""
