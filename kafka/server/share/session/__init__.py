"""Share sessions (Kafka's org.apache.kafka.server.share.session and .context): which partitions a
share consumer reads, remembered between its ShareFetch requests."""
