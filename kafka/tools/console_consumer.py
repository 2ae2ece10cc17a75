"""kafka-console-consumer: print records to standard output (Kafka's kafka.tools.ConsoleConsumer and
DefaultMessageFormatter, ``bin/kafka-console-consumer.sh``), on KafkaConsumer.

    kafka-console-consumer --bootstrap-server 127.0.0.1:9092 --topic T --from-beginning \\
        --property print.key=true --property print.offset=true --max-messages 10

Without ``--group`` it joins a fresh group ``console-consumer-NNNNN``, as Kafka's does, with
auto-commit off so repeated runs do not leave offsets behind.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from kafka.clients.consumer import KafkaConsumer
from kafka.tools.command_line_utils import load_props, parse_key_values, run
from kafka.utils.topic_partition import TopicPartition


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-console-consumer", description="Consume records and print them.")
    p.add_argument("--bootstrap-server", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--group")
    p.add_argument("--from-beginning", action="store_true")
    p.add_argument("--partition", type=int, help="read only this partition (assign, no group)")
    p.add_argument("--offset", default="latest", help="with --partition: earliest, latest or an offset")
    p.add_argument("--max-messages", type=int)
    p.add_argument("--timeout-ms", type=int, help="exit if no record arrives for this long")
    p.add_argument("--property", "--formatter-property", action="append",  # Kafka 4.x names it the latter
                   dest="property",
                   help="print.key, print.offset, print.partition, print.timestamp, print.headers, "
                        "print.value, key.separator, line.separator, headers.separator")
    p.add_argument("--consumer-property", "--command-property", action="append", dest="consumer_property")
    p.add_argument("--consumer.config", dest="consumer_config")
    return p


class DefaultMessageFormatter:
    """Kafka's formatter: [timestamp] [partition] [offset] [headers] [key] value, separator-joined."""

    def __init__(self, props: dict[str, str]) -> None:
        def flag(name: str, default: bool = False) -> bool:
            return props.get(name, str(default)).lower() == "true"

        self.print_timestamp, self.print_partition = flag("print.timestamp"), flag("print.partition")
        self.print_offset, self.print_headers = flag("print.offset"), flag("print.headers")
        self.print_key, self.print_value = flag("print.key"), flag("print.value", True)
        self.key_separator = _unescape(props.get("key.separator", "\t"))
        self.line_separator = _unescape(props.get("line.separator", "\n"))
        self.headers_separator = _unescape(props.get("headers.separator", ","))

    def format(self, record) -> str:
        parts = []
        if self.print_timestamp:
            parts.append(f"{record.timestamp_type}:{record.timestamp}")
        if self.print_partition:
            parts.append(f"Partition:{record.partition}")
        if self.print_offset:
            parts.append(f"Offset:{record.offset}")
        if self.print_headers:
            headers = self.headers_separator.join(f"{k}:{_text(v)}" for k, v in record.headers)
            parts.append(headers or "NO_HEADERS")
        if self.print_key:
            parts.append(_text(record.key))
        if self.print_value:
            parts.append(_text(record.value))
        return self.key_separator.join(parts) + self.line_separator


def _text(data: bytes | None) -> str:
    return "null" if data is None else data.decode("utf-8", errors="replace")


def _unescape(text: str) -> str:
    return text.encode().decode("unicode_escape")


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    formatter = DefaultMessageFormatter(parse_key_values(args.property, "--property"))
    config = {"bootstrap.servers": args.bootstrap_server,
              "auto.offset.reset": "earliest" if args.from_beginning else "latest",
              **load_props(args.consumer_config),
              **parse_key_values(args.consumer_property, "--consumer-property")}
    if args.partition is None:
        config.setdefault("group.id", args.group or f"console-consumer-{random.randint(1, 99999)}")
        if not args.group:
            config.setdefault("enable.auto.commit", "false")
    count = 0
    consumer = KafkaConsumer(config)
    try:
        if args.partition is not None:
            tp = TopicPartition(args.topic, args.partition)
            consumer.assign([tp])
            if args.offset == "earliest" or args.from_beginning:
                consumer.seek_to_beginning([tp])
            elif args.offset == "latest":
                consumer.seek_to_end([tp])
            else:
                consumer.seek(tp, int(args.offset))
        else:
            consumer.subscribe([args.topic])
        last_record = time.monotonic()
        while args.max_messages is None or count < args.max_messages:
            records = consumer.poll(100)
            for record in records:
                sys.stdout.write(formatter.format(record))
                count += 1
                if args.max_messages is not None and count >= args.max_messages:
                    break
            sys.stdout.flush()
            if records:
                last_record = time.monotonic()
            elif args.timeout_ms is not None and (time.monotonic() - last_record) * 1000 > args.timeout_ms:
                print("ERROR Error processing message, terminating consumer process: TimeoutException",
                      file=sys.stderr)
                break
    except KeyboardInterrupt:
        pass
    finally:
        consumer.close()
        print(f"Processed a total of {count} messages", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
