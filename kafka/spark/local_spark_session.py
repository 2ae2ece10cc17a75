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
query stopped mid-batch aborts that batch, which Spark logs at ERROR though the restarted query
runs it again: the stop silences those two loggers, and the EOFError PySpark's accumulator server
prints when the JVM side closes first.
"""

from __future__ import annotations

import atexit
import os
import sys
import tempfile
import time
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


def local_spark_session(app_name: str, master: str = "local[2]", shuffle_partitions: int = 2,
                        conf: dict[str, str] | None = None):
    """A SparkSession on ``master`` with the Kafka teaching source registered as ``kafka-teaching``.
    ``conf`` adds settings, such as ``spark.jars`` or ``spark.jars.packages`` naming Spark's own Kafka
    connector; they count only in the process's first session, which starts the JVM."""
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
             .config(map=dict(conf or {}))
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.dataSource.register(KafkaSourceProvider)
    atexit.register(_stop_at_exit, spark)
    return spark


SPARK_KAFKA_ARTIFACT = "org.apache.spark:spark-sql-kafka-0-10_2.13"


def spark_kafka_conf(jars: str | None = None) -> dict[str, str]:
    """The settings that put Spark's own Kafka connector (``format("kafka")``) on the classpath: ``jars``
    (a comma- or colon-separated list, such as Maven's build-classpath writes) as ``spark.jars``; without
    them the package at the installed PySpark's version as ``spark.jars.packages``, which Spark resolves
    with Ivy (the local Maven repository first, then Maven Central). The connector must be Spark's own
    release: docs/spark.md says why PySpark is pinned."""
    if jars:
        return {"spark.jars": ",".join(j for j in jars.replace(":", ",").split(",") if j)}
    import pyspark

    return {"spark.jars.packages": f"{SPARK_KAFKA_ARTIFACT}:{pyspark.__version__}"}


# Stopping a query interrupts the batch in flight, and Spark logs what the interrupt broke at ERROR
# although nothing is lost (the batch has offsets/N but no commits/N, so the restarted query runs it
# again): the batch's aborted write, a broadcast of its plan cut off while being stored, and a task
# of that batch releasing its lock on the broadcast after the broadcast was removed ("Error in
# TaskCompletionListener ... Block broadcast_6 does not exist", seen once in a full-suite run).
INTERRUPTED_BATCH_LOGGERS = ("org.apache.spark.sql.execution.datasources.v2.WriteToDataSourceV2Exec",
                             "org.apache.spark.broadcast.TorrentBroadcast",
                             "org.apache.spark.TaskContextImpl")


def stop_spark_session(spark, batch_wait_s: float = 5, query_timeout_s: float = 60) -> None:
    """Stop every active streaming query and wait until it has terminated, then stop the session.
    A query in the middle of a batch gets up to ``batch_wait_s`` to finish it first. Safe to call
    twice (the demo does, then the exit hook does)."""
    sc = spark.sparkContext
    if sc._jsc is None:  # already stopped
        return
    queries = spark.streams.active
    if queries:
        log4j = spark._jvm.org.apache.logging.log4j
        for logger in INTERRUPTED_BATCH_LOGGERS:
            log4j.core.config.Configurator.setLevel(logger, log4j.Level.OFF)
    for query in queries:
        deadline = time.monotonic() + batch_wait_s
        while query.isActive and query.status["isTriggerActive"] and time.monotonic() < deadline:
            time.sleep(0.05)
        query.stop()
        try:
            query.awaitTermination(query_timeout_s)
        except Exception:  # it failed before the stop: whoever ran it has seen that already
            pass
    _quiet_accumulator_server_at_stop(sc)
    spark.stop()


def _quiet_accumulator_server_at_stop(sc) -> None:
    """PySpark's accumulator server (a socketserver thread in this process) reads updates from the
    JVM; ``SparkContext.stop`` stops the JVM side first, so the server's handler can read the closed
    connection before it is told to shut down, and socketserver prints the EOFError's traceback.
    At this stop, and only for that error, say nothing."""
    server = getattr(sc, "_accumulatorServer", None)
    if server is None:
        return
    report = server.handle_error

    def handle_error(request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], EOFError):
            report(request, client_address)

    server.handle_error = handle_error


def _stop_at_exit(spark) -> None:
    """The exit hook: a session the program left open is stopped in order; if the JVM is already
    gone there is nothing left to stop, and nothing worth a traceback at exit."""
    try:
        stop_spark_session(spark)
    except Exception:  # py4j's errors once the gateway has died
        pass
