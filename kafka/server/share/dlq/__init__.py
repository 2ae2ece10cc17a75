"""Share groups' dead-letter queue (KIP-1191, share.version 2): Kafka's org.apache.kafka.server.share.dlq."""
