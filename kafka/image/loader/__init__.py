"""The MetadataLoader and the publishers it feeds (Kafka's org.apache.kafka.image.loader)."""
