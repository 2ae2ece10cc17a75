"""The producer: KafkaProducer, with its partitioner, RecordAccumulator and Sender thread."""

from kafka.clients.producer.kafka_producer import KafkaProducer
from kafka.clients.producer.producer_batch import RecordMetadata

__all__ = ["KafkaProducer", "RecordMetadata"]
