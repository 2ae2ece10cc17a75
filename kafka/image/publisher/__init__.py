"""Publishers of metadata images (Kafka's org.apache.kafka.image.publisher)."""
