"""kafka-producer-perf-test: produce N records of a given size as fast as allowed and report
throughput and latency (Kafka's org.apache.kafka.tools.ProducerPerformance,
``bin/kafka-producer-perf-test.sh``), on KafkaProducer.

    kafka-producer-perf-test --topic T --num-records 100000 --record-size 100 --throughput -1 \\
        --producer-props bootstrap.servers=127.0.0.1:9092 acks=1 linger.ms=5

Every five seconds, and at the end, it prints the lines Kafka's tool prints. Latency is measured
from ``send()`` to the delivery callback, so it includes the time a record waits in its batch.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from kafka.clients.producer import KafkaProducer
from kafka.tools.command_line_utils import load_props, parse_key_values, run

REPORTING_INTERVAL_S = 5.0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-producer-perf-test", description="Measure producer throughput.")
    p.add_argument("--topic", required=True)
    p.add_argument("--num-records", type=int, required=True)
    p.add_argument("--record-size", type=int, help="bytes per record (random payload)")
    p.add_argument("--payload-file", help="records are lines of this file, chosen at random")
    p.add_argument("--throughput", type=float, required=True, help="records/sec cap; -1 for none")
    p.add_argument("--producer-props", "--command-property", nargs="+", dest="producer_props",
                   help="producer configs, name=value ...")
    p.add_argument("--producer.config", dest="producer_config")
    p.add_argument("--bootstrap-server", help="shorthand for --producer-props bootstrap.servers=...")
    return p


class Stats:
    """Kafka's ProducerPerformance.Stats: windowed and total counts, and latency percentiles."""

    def __init__(self, num_records: int) -> None:
        self.start = self.window_start = time.monotonic()
        self.count = self.bytes = self.total_latency = self.max_latency = 0
        self.window_count = self.window_bytes = self.window_total_latency = self.window_max_latency = 0
        self.sampling = max(1, num_records // 500_000)
        self.latencies: list[int] = []

    def record(self, latency_ms: int, size: int) -> None:
        self.count += 1
        self.bytes += size
        self.total_latency += latency_ms
        self.max_latency = max(self.max_latency, latency_ms)
        self.window_count += 1
        self.window_bytes += size
        self.window_total_latency += latency_ms
        self.window_max_latency = max(self.window_max_latency, latency_ms)
        if self.count % self.sampling == 0:
            self.latencies.append(latency_ms)
        if time.monotonic() - self.window_start >= REPORTING_INTERVAL_S:
            self.print_window()

    def print_window(self) -> None:
        elapsed = max(time.monotonic() - self.window_start, 1e-9)
        print(f"{self.window_count} records sent, {self.window_count / elapsed:.1f} records/sec "
              f"({self.window_bytes / elapsed / 1024 / 1024:.2f} MB/sec), "
              f"{self.window_total_latency / max(self.window_count, 1):.1f} ms avg latency, "
              f"{float(self.window_max_latency):.1f} ms max latency.", flush=True)
        self.window_start = time.monotonic()
        self.window_count = self.window_bytes = self.window_total_latency = self.window_max_latency = 0

    def print_total(self) -> None:
        elapsed = max(time.monotonic() - self.start, 1e-9)
        lat = sorted(self.latencies) or [0]

        def pct(p: float) -> int:
            return lat[min(len(lat) - 1, int(p * len(lat)))]

        print(f"{self.count} records sent, {self.count / elapsed:f} records/sec "
              f"({self.bytes / elapsed / 1024 / 1024:.2f} MB/sec), "
              f"{self.total_latency / max(self.count, 1):.2f} ms avg latency, {float(self.max_latency):.2f} "
              "ms max latency, "
              f"{pct(0.5)} ms 50th, {pct(0.95)} ms 95th, {pct(0.99)} ms 99th, {pct(0.999)} ms 99.9th.",
              flush=True)


class ThroughputThrottler:
    """Sleep just enough to keep to ``target`` records/sec (Kafka's ThroughputThrottler)."""

    def __init__(self, target: float) -> None:
        self.target = target
        self.start = time.monotonic()

    def throttle(self, sent: int) -> None:
        if self.target > 0:
            ahead = sent / self.target - (time.monotonic() - self.start)
            if ahead > 0.001:
                time.sleep(ahead)


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    config = {**load_props(args.producer_config), **parse_key_values(args.producer_props, "--producer-props")}
    if args.bootstrap_server:
        config["bootstrap.servers"] = args.bootstrap_server
    if args.payload_file:
        with open(args.payload_file, "rb") as f:
            payloads = [line.rstrip(b"\n") for line in f if line.strip()]
    elif args.record_size:
        payloads = [os.urandom(args.record_size)]
    else:
        raise ValueError("either --record-size or --payload-file must be given")
    stats = Stats(args.num_records)
    throttler = ThroughputThrottler(args.throughput)
    with KafkaProducer(config) as producer:
        for i in range(args.num_records):
            payload = payloads[i % len(payloads)]
            sent_at, size = time.monotonic(), len(payload)

            def on_delivery(metadata, exception, sent_at=sent_at, size=size) -> None:
                if exception is not None:
                    print(f"ERROR {exception}", file=sys.stderr)
                else:
                    stats.record(int((time.monotonic() - sent_at) * 1000), size)

            producer.send(args.topic, payload, callback=on_delivery)
            throttler.throttle(i + 1)
        producer.flush()
    stats.print_total()
    return 0


if __name__ == "__main__":
    sys.exit(main())
