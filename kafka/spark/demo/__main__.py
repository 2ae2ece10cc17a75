"""``python -m kafka.spark.demo`` (``make demo``): a broker, a page-view stream, a Spark job, the windows.

1. Start a broker -- ``python -m kafka`` with a small server.properties of the demo's own, on a
   free 127.0.0.1 port, its log in ``<data-dir>/broker`` -- unless ``--bootstrap-server`` names one.
2. Create ``page-views`` (3 partitions) and ``page-view-counts`` (1 partition) if they are missing.
3. Start the streaming job (``page_view_counts``) with a 2-second trigger, checkpointed in
   ``<data-dir>/checkpoint``, and a generator thread producing page views stamped with the wall
   clock for ``--seconds`` seconds.
4. Print each window as it arrives in ``page-view-counts``; when the generator is done, let the
   query finish what is there, stop everything and say how many events the query read.

Run it twice: the second run's query starts from the checkpoint, reads only the new events, and
closes the windows the first run left open. ``--fresh`` deletes ``<data-dir>`` first.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.consumer import KafkaConsumer
from kafka.clients.producer import KafkaProducer
from kafka.spark.demo.page_view_counts import count_views_per_page, read_page_views, write_window_counts
from kafka.spark.demo.page_view_generator import page_views, produce
from kafka.spark.local_spark_session import local_spark_session
from kafka.utils.logging import configure_logging
from kafka.utils.topic_partition import TopicPartition

INPUT_TOPIC = "page-views"
OUTPUT_TOPIC = "page-view-counts"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_broker(data_dir: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    bootstrap = f"127.0.0.1:{port}"
    data_dir.mkdir(parents=True, exist_ok=True)
    properties = data_dir / "server.properties"
    properties.write_text("\n".join([
        "node.id=1", f"listeners=PLAINTEXT://{bootstrap}", f"advertised.listeners=PLAINTEXT://{bootstrap}",
        f"log.dirs={data_dir / 'logs'}", "metrics.listener=http://127.0.0.1:0",
        "num.network.threads=2", "num.io.threads=2", ""]))
    log_file = open(data_dir / "broker.log", "ab")
    broker = subprocess.Popen([sys.executable, "-m", "kafka", str(properties)], stdout=log_file, stderr=log_file)
    deadline = time.monotonic() + 30
    while True:
        if broker.poll() is not None:
            raise SystemExit(f"the broker exited with {broker.returncode}; see {data_dir / 'broker.log'}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return broker, bootstrap
        except OSError:
            if time.monotonic() > deadline:
                broker.terminate()
                raise SystemExit(f"the broker did not listen on {bootstrap} within 30 s") from None
            time.sleep(0.1)


def create_topics(bootstrap: str) -> int:
    """Create the topics if needed; the output topic's end offset (where this run's windows begin)."""
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        missing = [t for t in (NewTopic(INPUT_TOPIC, 3, 1), NewTopic(OUTPUT_TOPIC, 1, 1))
                   if t.name not in admin.list_topics()]
        if missing:
            admin.create_topics(missing)
        tp = TopicPartition(OUTPUT_TOPIC, 0)
        return admin.list_offsets({tp: "latest"})[tp][0]


def generate(bootstrap: str, seconds: float, rate: int, produced: list) -> None:
    """Page views stamped with the wall clock, ``rate`` a second, for ``seconds``."""
    with KafkaProducer({"bootstrap.servers": bootstrap, "linger.ms": 20}) as producer:
        end = time.monotonic() + seconds
        seed = time.time_ns()
        while time.monotonic() < end:
            now_ms = int(time.time() * 1000)
            produced += produce(producer, INPUT_TOPIC, page_views([now_ms] * max(1, rate // 10), seed=seed))
            seed += 1
            time.sleep(0.1)


def print_windows(bootstrap: str, from_offset: int, stop: threading.Event, printed: list) -> None:
    tp = TopicPartition(OUTPUT_TOPIC, 0)
    with KafkaConsumer({"bootstrap.servers": bootstrap}) as consumer:
        consumer.assign([tp])
        consumer.seek(tp, from_offset)
        while True:
            records = consumer.poll(200)
            for record in records:
                w = json.loads(record.value)
                window = f"{w['window_start'][11:19]}-{w['window_end'][11:19]}"
                print(f"  window {window}  {w['page']:<10} {w['views']:>4} views", flush=True)
                printed.append(w)
            if stop.is_set() and not records and consumer.position(tp) >= consumer.end_offsets([tp])[tp]:
                return


def wait_for_watermark_batch(query, timeout: float = 20.0) -> None:
    """Wait for a batch without data after the last one with data: it moves the watermark, closing windows."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        progress = query.lastProgress
        if progress is None or progress["numInputRows"] == 0:
            return
        time.sleep(0.2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kafka.spark.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-server", help="use this broker instead of starting one")
    parser.add_argument("--data-dir", default="data/spark-demo", help="broker log and Spark checkpoint")
    parser.add_argument("--seconds", type=float, default=20, help="how long the generator runs")
    parser.add_argument("--rate", type=int, default=20, help="page views a second")
    parser.add_argument("--format", default="kafka-teaching", help="the Spark source and sink format")
    parser.add_argument("--fresh", action="store_true", help="delete --data-dir first")
    args = parser.parse_args(argv)
    configure_logging(level=logging.WARNING)
    data_dir = Path(args.data_dir).resolve()
    if args.fresh and data_dir.exists():
        shutil.rmtree(data_dir)
    checkpoint = data_dir / "checkpoint"
    second_run = checkpoint.exists()

    broker = None
    if args.bootstrap_server:
        bootstrap = args.bootstrap_server
    else:
        broker, bootstrap = start_broker(data_dir / "broker")
        print(f"broker on {bootstrap} (log in {data_dir / 'broker'})", flush=True)
    try:
        first_window = create_topics(bootstrap)
        spark = local_spark_session("page-view-counts")
        print(f"Spark {spark.version} local[2]; query checkpoint {checkpoint}"
              + (" (resuming)" if second_run else " (new)"), flush=True)
        counts = count_views_per_page(read_page_views(spark, bootstrap, INPUT_TOPIC, fmt=args.format),
                                      window_duration="10 seconds", watermark="5 seconds")
        query = (write_window_counts(counts, bootstrap, OUTPUT_TOPIC, str(checkpoint), fmt=args.format)
                 .trigger(processingTime="2 seconds").start())
        produced: list = []
        printed: list = []
        stop = threading.Event()
        printer = threading.Thread(target=print_windows, args=(bootstrap, first_window, stop, printed), daemon=True)
        printer.start()
        print(f"producing ~{args.rate} page views a second for {args.seconds:g} s to {INPUT_TOPIC}; "
              f"windows closed (watermark 5 s) are printed from {OUTPUT_TOPIC}:", flush=True)
        generate(bootstrap, args.seconds, args.rate, produced)
        query.processAllAvailable()
        wait_for_watermark_batch(query)
        read = sum(p["numInputRows"] for p in query.recentProgress)
        query.stop()
        stop.set()
        printer.join(30)
        spark.stop()
        print(f"this run: produced {len(produced)} page views; the query read {read}; "
              f"{len(printed)} window counts written to {OUTPUT_TOPIC}.")
        print("windows still open wait in the checkpoint's state; run the demo again and the query resumes "
              "there, reading only the new events.")
        return 0
    finally:
        if broker is not None:
            broker.terminate()
            broker.wait(30)


if __name__ == "__main__":
    sys.exit(main())
