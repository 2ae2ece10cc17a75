"""A local SparkSession that stays on the loopback interface and keeps quiet.

Not a Spark class: the one place that says how the tests and the demo run Spark here. Spark in
``local[N]`` mode still opens ports (the driver's RPC and block manager, the web UI) and would
bind them to the machine's outward address; everything is pinned to 127.0.0.1 and the UI is off.
The Python workers run this interpreter (``PYSPARK_PYTHON=sys.executable``), so they import the
same ``kafka`` package. log4j is told to print only errors, and the session clock is UTC, so
printed event-time windows read the same everywhere.

``stop_spark_session`` ends a session in the order that keeps PySpark's workers quiet: each
streaming query stopped and awaited first, then ``spark.stop()``. Stopping the JVM under a running
query (or leaving Python with the session open, when PySpark's exit hook kills the JVM) closes the
sockets its Python workers are still writing to, and each prints a BrokenPipeError traceback from
``pyspark/daemon.py``; ``local_spark_session`` registers the same clean stop to run at exit. A
query stopped mid-batch aborts that batch's write, which Spark logs at ERROR; the stop silences
that one logger first, since the restarted query runs the batch again.
"""

from __future__ import annotations

import atexit
import os
import sys
import tempfile
from pathlib import Path

LOG4J2_PROPERTIES = """\
rootLogger.level = error
rootLogger.appenderRef.stdout.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def _quiet_log4j() -> Path:
    path = Path(tempfile.gettempdir()) / "kafka-teaching-spark-log4j2.properties"
    if not path.exists() or path.read_text() != LOG4J2_PROPERTIES:
        path.write_text(LOG4J2_PROPERTIES)
    return path


def local_spark_session(app_name: str, master: str = "local[2]", shuffle_partitions: int = 2):
    """A SparkSession on ``master`` with the Kafka teaching source registered as ``kafka-teaching``."""
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    from kafka.spark.kafka_source_provider import KafkaSourceProvider

    log4j = f"-Dlog4j.configurationFile=file:{_quiet_log4j()}"
    spark = (SparkSession.builder.master(master).appName(app_name)
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.extraJavaOptions", log4j)
             .config("spark.executor.extraJavaOptions", log4j)
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.dataSource.register(KafkaSourceProvider)
    atexit.register(_stop_at_exit, spark)
    return spark


# Stopping a query interrupts the batch in flight, and Spark logs its aborted write at ERROR although
# nothing is lost: the batch's offsets/N has no commits/N, so the restarted query runs it again.
ABORTED_WRITE_LOGGER = "org.apache.spark.sql.execution.datasources.v2.WriteToDataSourceV2Exec"


def stop_spark_session(spark, query_timeout_s: float = 60) -> None:
    """Stop every active streaming query and wait until it has terminated, then stop the session.
    Safe to call twice (the demo does, then the exit hook does)."""
    if spark.sparkContext._jsc is None:  # already stopped
        return
    queries = spark.streams.active
    if queries:
        log4j = spark._jvm.org.apache.logging.log4j
        log4j.core.config.Configurator.setLevel(ABORTED_WRITE_LOGGER, log4j.Level.OFF)
    for query in queries:
        query.stop()
        try:
            query.awaitTermination(query_timeout_s)
        except Exception:  # it failed before the stop: whoever ran it has seen that already
            pass
    spark.stop()


def _stop_at_exit(spark) -> None:
    """The exit hook: a session the program left open is stopped in order; if the JVM is already
    gone there is nothing left to stop, and nothing worth a traceback at exit."""
    try:
        stop_spark_session(spark)
    except Exception:  # py4j's errors once the gateway has died
        pass
