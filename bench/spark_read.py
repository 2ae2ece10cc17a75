#!/usr/bin/env python3
"""Spark's batch read of a topic beside a plain librdkafka consumer reading the same topic.

Produces ``-n`` records of ``-s`` bytes into ``-p`` partitions (with confluent-kafka), then in the
same sitting measures, in rows per second:

1. a confluent-kafka consumer reading the whole topic (bench.py's consumer settings);
2. ``spark.read.format("kafka-teaching")...load().count()`` on local[2], after one warm-up query
   (the first query of a session also starts the JVM's Python workers and JIT-compiles the plan);
3. the same ``count()`` through Spark's own connector, ``format("kafka")`` (its jars from
   ``--jars``, by default the classpath file tests/jvm/resolve.py writes, else spark.jars.packages).

It prints each and its ratio to confluent-kafka, and the CPU each used: the client's
own for confluent-kafka; the JVM and its Python workers together for Spark. Starts a broker of
its own unless ``--bootstrap-server`` names one (docs/spark.md, "How fast the reader is").

    .venv/bin/python bench/spark_read.py                 # 300,000 x 200 B in 3 partitions
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")


def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])[topic].result(20)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # every partition has a leader
        md = admin.list_topics(topic, timeout=5).topics.get(topic)
        if md and not md.error and len(md.partitions) == partitions and all(
                p.leader >= 0 for p in md.partitions.values()):
            return
        time.sleep(0.1)
    raise RuntimeError(f"topic {topic} not ready")


def produce(bootstrap: str, topic: str, n: int, size: int, partitions: int) -> None:
    errors = []
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "batch.size": 1048576,
                         "queue.buffering.max.messages": 1000000, "delivery.report.only.error": True,
                         "on_delivery": lambda err, msg: errors.append(err)})
    payload = os.urandom(size)
    for i in range(n):
        while True:
            try:
                producer.produce(topic, payload, partition=i % partitions)
                break
            except BufferError:
                producer.poll(0.01)
    if producer.flush(60) or errors:
        raise RuntimeError(f"producing failed: {errors[:1]}")


def client_cpu_seconds() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds of ``root`` and every process under it (the JVM, its Python daemon and workers)."""
    children: dict[int, list[int]] = {}
    ticks: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                rest = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(rest[1]), []).append(int(entry))
        ticks[int(entry)] = int(rest[11]) + int(rest[12])
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += ticks.get(pid, 0)
        todo += children.get(pid, [])
    return total / CLK_TCK


def confluent_read(bootstrap: str, topic: str, partitions: int, n: int) -> tuple[float, float]:
    """rows/s and client CPU % of a librdkafka consumer reading the whole topic."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "spark-read-" + uuid.uuid4().hex[:8],
                         "enable.auto.commit": False, "auto.offset.reset": "earliest",
                         "queued.min.messages": 2000000, "queued.max.messages.kbytes": 2097151})
    consumer.list_topics(topic, timeout=10)
    count = 0
    cpu0, t0 = client_cpu_seconds(), time.perf_counter()
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    deadline = t0 + 120
    while count < n and time.perf_counter() < deadline:
        for message in consumer.consume(num_messages=10000, timeout=0.5):
            if message.error() is None:
                count += 1
    elapsed = time.perf_counter() - t0
    cpu = client_cpu_seconds() - cpu0
    consumer.close()
    if count != n:
        raise RuntimeError(f"confluent-kafka read {count} of {n} records")
    return n / elapsed, cpu / elapsed * 100


def spark_count(spark, bootstrap: str, topic: str, n: int,
                fmt: str = "kafka-teaching") -> tuple[float, float]:
    """rows/s and CPU % (JVM and Python workers) of a batch count() through the ``fmt`` source."""
    jvm = spark.sparkContext._gateway.proc.pid
    df = (spark.read.format(fmt).option("kafka.bootstrap.servers", bootstrap)
          .option("subscribe", topic).load())
    cpu0, t0 = tree_cpu_seconds(jvm) + client_cpu_seconds(), time.perf_counter()
    count = df.count()
    elapsed = time.perf_counter() - t0
    cpu = tree_cpu_seconds(jvm) + client_cpu_seconds() - cpu0
    if count != n:
        raise RuntimeError(f"Spark counted {count} of {n} records")
    return n / elapsed, cpu / elapsed * 100


def connector_jars() -> str | None:
    """The classpath file of tests/jvm's spark-kafka profile, if `make test` or `make demo SOURCE=kafka`
    wrote it."""
    path = Path(__file__).resolve().parent.parent / "tests" / "jvm" / "target" / "classpath-spark-kafka.txt"
    return path.read_text().strip() if path.exists() else None


def start_broker(data_dir: Path):
    from kafka.spark.demo.__main__ import start_broker as start
    return start(data_dir)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bootstrap-server", help="use this broker instead of starting one")
    ap.add_argument("-n", type=int, default=300_000, help="records")
    ap.add_argument("-s", "--size", type=int, default=200, help="bytes per record")
    ap.add_argument("-p", "--partitions", type=int, default=3)
    ap.add_argument("--runs", type=int, default=3, help="timed runs of each reader (median reported)")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--jars", default=connector_jars(),
                    help="Spark's Kafka connector's jars (comma- or colon-separated)")
    a = ap.parse_args()

    broker, data_dir = None, None
    if a.bootstrap_server:
        bootstrap = a.bootstrap_server
    else:
        data_dir = tempfile.TemporaryDirectory(prefix="spark-read-")
        broker, bootstrap = start_broker(Path(data_dir.name))
    spark = None
    topic = f"spark-read-{a.partitions}p-{a.size}b-{uuid.uuid4().hex[:6]}"
    try:
        create_topic(bootstrap, topic, a.partitions)
        produce(bootstrap, topic, a.n, a.size, a.partitions)

        from kafka.spark.local_spark_session import local_spark_session, spark_kafka_conf
        spark = local_spark_session("spark-read-bench", master=a.master, conf=spark_kafka_conf(a.jars))
        readers = {"confluent-kafka consumer": lambda: confluent_read(bootstrap, topic, a.partitions, a.n)}
        for fmt in ("kafka-teaching", "kafka"):
            spark_count(spark, bootstrap, topic, a.n, fmt)  # warm-up: Python workers started, plan compiled
            readers[f"spark {fmt} count()"] = lambda fmt=fmt: spark_count(spark, bootstrap, topic, a.n, fmt)
        results: dict[str, list] = {name: [] for name in readers}
        for _ in range(a.runs):  # interleaved, so that a busy moment on the machine hits all
            for name, read in readers.items():
                results[name].append(read())
        for name, runs in results.items():
            print(f"  {name:30s} runs: {', '.join(f'{r:,.0f}' for r, _ in runs)} rows/s")
        medians = {name: (statistics.median(r for r, _ in runs), statistics.median(c for _, c in runs))
                   for name, runs in results.items()}
        rate, cpu = medians.pop("confluent-kafka consumer")
        print(f"MEDIAN confluent-kafka consumer n={a.n} s={a.size} p={a.partitions}: {rate:,.0f} rows/s  "
              f"client_cpu={cpu:.0f}%")
        for name, (spark_rate, spark_cpu) in medians.items():
            print(f"MEDIAN {name} {a.master} n={a.n} s={a.size} p={a.partitions}: {spark_rate:,.0f} rows/s  "
                  f"spark_cpu={spark_cpu:.0f}% (JVM + Python workers)")
            print(f"RATIO {name} / confluent-kafka: {spark_rate / rate:.2f}")
    finally:
        if spark is not None:
            spark.stop()
        if broker is None:  # someone else's broker: leave it as it was
            admin = AdminClient({"bootstrap.servers": bootstrap})
            admin.delete_topics([topic])[topic].result(20)
        if broker is not None:
            broker.terminate()
            broker.wait(20)
            data_dir.cleanup()


if __name__ == "__main__":
    main()
