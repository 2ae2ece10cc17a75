"""The consumer: KafkaConsumer, with its Fetcher, SubscriptionState and ConsumerCoordinator."""

from kafka.clients.consumer.consumer_coordinator import ConsumerRebalanceListener
from kafka.clients.consumer.consumer_record import ConsumerRecord, ConsumerRecords
from kafka.clients.consumer.kafka_consumer import KafkaConsumer
from kafka.clients.consumer.subscription_state import OffsetAndMetadata

__all__ = ["ConsumerRebalanceListener", "ConsumerRecord", "ConsumerRecords", "KafkaConsumer",
           "OffsetAndMetadata"]
