"""One local[2] SparkSession for every Spark test (it takes seconds to start), on 127.0.0.1 only.

Every test here is marked ``spark``: ``pytest -m spark`` runs only them, ``-m "not spark"`` skips them.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark", reason="the Spark tests need the spark extra: pip install -e '.[test,spark]'")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/spark/" in item.nodeid:
            item.add_marker(pytest.mark.spark)


def pytest_configure(config):
    config.addinivalue_line("markers", "spark: needs PySpark and Java; runs Spark local[2] against a broker")


@pytest.fixture(scope="session")
def spark_broker(tmp_path_factory):
    """One broker for all Spark tests (each test uses its own topics): a stop costs a second."""
    from tests.helpers import InProcessBroker

    broker = InProcessBroker(tmp_path_factory.mktemp("spark-broker"), {})
    yield broker
    broker.stop()


@pytest.fixture(scope="session")
def spark_kafka_conf():
    """Spark's own Kafka connector for the session (spark.jars, resolved by Maven), and why not (None when
    it is there): without it the session starts all the same, and only the tests of ``format("kafka")``
    fail, with that one line."""
    from tests.jvm.spark_kafka import spark_conf

    return spark_conf()


@pytest.fixture(scope="session")
def spark(spark_kafka_conf):
    """One session for every Spark test. The JVM starts once per process, so this one session carries
    both sources: ours (``kafka-teaching``) and Spark's (``kafka``)."""
    from kafka.spark.local_spark_session import local_spark_session

    session = local_spark_session("kafka-teaching-tests", conf=spark_kafka_conf[0])
    yield session
    session.stop()


@pytest.fixture
def spark_kafka(spark, spark_kafka_conf):
    """The session, for a test of Spark's own ``format("kafka")``: fails in one line if the connector is
    missing."""
    if spark_kafka_conf[1] is not None:
        pytest.fail(spark_kafka_conf[1], pytrace=False)
    return spark
