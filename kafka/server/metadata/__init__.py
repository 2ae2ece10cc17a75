"""The broker's side of the metadata log (Kafka's kafka.server.metadata): publishers of MetadataImages."""
