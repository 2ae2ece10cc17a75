"""What every coordinator shares (Kafka's coordinator-common module): the runtime in `runtime/`."""
