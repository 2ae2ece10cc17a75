"""kafka-consumer-perf-test: consume N records as fast as possible and report throughput (Kafka's
org.apache.kafka.tools.ConsumerPerformance, ``bin/kafka-consumer-perf-test.sh``), on KafkaConsumer.

    kafka-consumer-perf-test --bootstrap-server 127.0.0.1:9092 --topic T --messages 100000

Prints Kafka's header and one line of totals: the time spent joining the group (rebalance.time.ms)
is reported apart from the time spent fetching (fetch.time.ms).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import datetime

from kafka.clients.consumer import ConsumerRebalanceListener, KafkaConsumer
from kafka.tools.command_line_utils import load_props, parse_key_values, run

HEADER = ("start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, "
          "rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-consumer-perf-test", description="Measure consumer throughput.")
    p.add_argument("--bootstrap-server", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--messages", "--num-records", type=int, required=True, dest="messages")  # 4.x: the latter
    p.add_argument("--group", default=f"perf-consumer-{random.randint(1, 99999)}")
    p.add_argument("--timeout", type=int, default=10000, help="ms without records before giving up")
    p.add_argument("--from-latest", action="store_true")
    p.add_argument("--hide-header", action="store_true")
    p.add_argument("--consumer.config", dest="consumer_config")
    p.add_argument("--consumer-property", "--command-property", action="append", dest="consumer_property")
    return p


def _date(t: float) -> str:
    return datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S:") + f"{int(t * 1000) % 1000:03d}"


class _JoinTimer(ConsumerRebalanceListener):
    def __init__(self) -> None:
        self.joined_at: float | None = None

    def on_partitions_assigned(self, assigned) -> None:
        if self.joined_at is None:
            self.joined_at = time.time()


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    config = {"bootstrap.servers": args.bootstrap_server, "group.id": args.group,
              "auto.offset.reset": "latest" if args.from_latest else "earliest", "enable.auto.commit": "true",
              **load_props(args.consumer_config),
              **parse_key_values(args.consumer_property, "--consumer-property")}
    joined = _JoinTimer()
    count = size = 0
    start = time.time()
    with KafkaConsumer(config) as consumer:
        consumer.subscribe([args.topic], listener=joined)
        last_record = time.monotonic()
        while count < args.messages:
            records = consumer.poll(100)
            for record in records:
                count += 1
                size += len(record.value or b"") + len(record.key or b"")
            if records:
                last_record = time.monotonic()
            elif (time.monotonic() - last_record) * 1000 > args.timeout:
                print("WARNING: Exiting before consuming the expected number of messages: timeout "
                      f"({args.timeout} ms) "
                      "exceeded. You can use the --timeout option to increase the timeout.", file=sys.stderr)
                break
    end = time.time()
    elapsed = max(end - start, 1e-9)
    rebalance = (joined.joined_at or start) - start
    fetch = max(elapsed - rebalance, 1e-9)
    mb = size / 1024 / 1024
    if not args.hide_header:
        print(HEADER)
    print(f"{_date(start)}, {_date(end)}, {mb:.4f}, {mb / elapsed:.4f}, {count}, {count / elapsed:.4f}, "
          f"{int(rebalance * 1000)}, {int(fetch * 1000)}, {mb / fetch:.4f}, {count / fetch:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
