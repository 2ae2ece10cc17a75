"""A PySpark data source for the broker, shaped like Spark's Kafka source (``format("kafka")``).

Spark's own connector is a JVM library from Maven; this one is written in Python with PySpark's
Python Data Source API over ``kafka.clients``, so a student can read how Structured Streaming's
micro-batches become Kafka offsets. ``pip install .[spark]`` brings PySpark; then::

    from kafka.spark import KafkaSourceProvider
    spark.dataSource.register(KafkaSourceProvider)   # format("kafka-teaching")

See docs/spark.md.
"""

import logging

import structlog

from kafka.spark.kafka_source_provider import SHORT_NAME, KafkaSourceProvider
from kafka.utils.logging import configure_logging

if not structlog.is_configured():
    # Spark's Python workers import this package fresh: let them log only warnings, on stderr.
    configure_logging(level=logging.WARNING)

__all__ = ["SHORT_NAME", "KafkaSourceProvider"]
