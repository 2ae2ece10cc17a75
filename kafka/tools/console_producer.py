"""kafka-console-producer: one record per line of standard input (Kafka's kafka.tools.ConsoleProducer,
``bin/kafka-console-producer.sh``), on KafkaProducer.

    kafka-console-producer --bootstrap-server 127.0.0.1:9092 --topic T \\
        --property parse.key=true --property key.separator=:
"""

from __future__ import annotations

import argparse
import sys

from kafka.clients.errors import KafkaError
from kafka.clients.producer import KafkaProducer
from kafka.tools.command_line_utils import load_props, parse_key_values, run


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-console-producer",
                                description="Read lines from stdin and produce them.")
    p.add_argument("--bootstrap-server", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--property", "--reader-property", action="append", dest="property",
                   help="parse.key=true, key.separator=SEP, ignore.error=true")
    p.add_argument("--producer-property", "--command-property", action="append", dest="producer_property",
                   help="a producer config, name=value (repeatable)")
    p.add_argument("--producer.config", dest="producer_config")
    p.add_argument("--compression-codec", nargs="?", const="gzip", help="none, gzip, snappy, lz4 or zstd")
    p.add_argument("--request-required-acks", default="-1")
    p.add_argument("--sync", action="store_true", help="wait for each record's acknowledgement")
    return p


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    props = parse_key_values(args.property, "--property")
    parse_key = props.get("parse.key", "false").lower() == "true"
    separator = props.get("key.separator", "\t")
    config = {"bootstrap.servers": args.bootstrap_server, "acks": args.request_required_acks,
              **load_props(args.producer_config),
              **parse_key_values(args.producer_property, "--producer-property")}
    if args.compression_codec:
        config["compression.type"] = args.compression_codec
    failures = []

    def on_delivery(metadata, exception) -> None:
        if exception is not None:
            failures.append(exception)
            print(f"ERROR when sending message to topic {args.topic}: {exception}", file=sys.stderr)

    with KafkaProducer(config) as producer:
        for line in sys.stdin:
            line = line.rstrip("\n")
            key = None
            if parse_key:
                key, sep, line = line.partition(separator)
                if not sep:
                    raise KafkaError(message=f"no key separator {separator!r} found on line: {key}")
            future = producer.send(args.topic, line, key=key, callback=on_delivery)
            if args.sync:
                future.exception()
        producer.flush()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
