"""A streams group's topics: Kafka's org.apache.kafka.coordinator.group.streams.topics."""
