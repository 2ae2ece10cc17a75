"""A streams group's task assignors: Kafka's org.apache.kafka.coordinator.group.streams.assignor."""
