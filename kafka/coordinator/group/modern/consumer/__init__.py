"""KIP-848 consumer groups (Kafka's org.apache.kafka.coordinator.group.modern.consumer): the group,
its members, and the builders of the target and of each member's current assignment."""
