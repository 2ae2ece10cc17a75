"""The share-group state persister (Kafka's org.apache.kafka.server.share.persister): how a SharePartition
reads and writes its state, wherever it is kept."""
