"""kafka-get-offsets: the offsets of a topic's partitions at a point in time (Kafka's
org.apache.kafka.tools.GetOffsetShell, ``bin/kafka-get-offsets.sh``), on the AdminClient's ListOffsets.

    kafka-get-offsets --bootstrap-server 127.0.0.1:9092 --topic T [--partitions 0,2] [--time -1|-2|-3|<ms>]

Prints ``topic:partition:offset`` per line; --time -1 (latest, the default), -2 (earliest),
-3 (the record with the largest timestamp) or a timestamp in ms (the first offset at or after it).
"""

from __future__ import annotations

import argparse
import re
import sys

from kafka.clients.admin import AdminClient
from kafka.tools.command_line_utils import load_props, run
from kafka.utils.topic_partition import TopicPartition

_TIME_NAMES = {"-1": "latest", "latest": "latest", "-2": "earliest", "earliest": "earliest",
               "-3": "max-timestamp", "max-timestamp": "max-timestamp"}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-get-offsets", description="Print offsets of topic partitions.")
    p.add_argument("--bootstrap-server", required=True)
    p.add_argument("--topic", help="a topic name or regular expression (default: all topics)")
    p.add_argument("--partitions", help="comma-separated partition ids (default: all)")
    p.add_argument("--time", default="-1")
    p.add_argument("--exclude-internal-topics", action="store_true")
    p.add_argument("--command-config")
    return p


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    spec = _TIME_NAMES.get(args.time) or int(args.time)
    wanted = {int(p) for p in args.partitions.split(",")} if args.partitions else None
    with AdminClient({"bootstrap.servers": args.bootstrap_server,
                      **load_props(args.command_config)}) as admin:
        topics = sorted(t for t in admin.list_topics(include_internal=not args.exclude_internal_topics)
                        if args.topic is None or re.fullmatch(args.topic, t))
        partitions = [TopicPartition(name, p.partition)
                      for name, desc in sorted(admin.describe_topics(topics).items())
                      for p in desc.partitions if wanted is None or p.partition in wanted]
        offsets = admin.list_offsets({tp: spec for tp in partitions}) if partitions else {}
    for tp in partitions:
        offset, _ = offsets[tp]
        if offset >= 0:  # a timestamp later than every record has no offset: Kafka prints nothing
            print(f"{tp.topic}:{tp.partition}:{offset}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
