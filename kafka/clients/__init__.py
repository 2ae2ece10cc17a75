"""A small, readable Kafka client on the same protocol package as the broker (Kafka's kafka-clients).

``KafkaProducer``, ``KafkaConsumer`` and ``AdminClient`` share one ``NetworkClient`` design:
one connection per broker, requests answered in order, metadata refreshed first (seed 003).
"""
