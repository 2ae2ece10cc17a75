"""The persister (Kafka's org.apache.kafka.server.share.persister): how a share partition's leader
stores and reads back its state. Persister is the interface, NoOpStatePersister keeps nothing, and
DefaultStatePersister sends the share-group state RPCs to the share coordinator."""
