"""Command-line tools, named and flagged as Kafka's bin/kafka-*.sh are."""
