"""kafka-leader-election: ask the controller to elect leaders (Kafka's
org.apache.kafka.tools.LeaderElectionCommand, ``bin/kafka-leader-election.sh``), on ElectLeaders.

    kafka-leader-election --bootstrap-server 127.0.0.1:9092 --election-type PREFERRED \
        --topic orders --partition 0
    kafka-leader-election --bootstrap-server 127.0.0.1:9092 --election-type PREFERRED --all-topic-partitions
    kafka-leader-election --bootstrap-server 127.0.0.1:9092 --election-type UNCLEAN \
        --path-to-json-file parts.json

PREFERRED moves leadership back to each partition's first replica (it must be in the ISR); UNCLEAN
gives a partition that has no leader any live replica, even one outside the ISR, and may lose
records. The JSON file is Kafka's: {"partitions": [{"topic": "orders", "partition": 0}, ...]}.
Prints, as Kafka does:

    Successfully completed leader election (PREFERRED) for partitions orders-0
    Valid replica already elected for partitions orders-1
    Error completing leader election (PREFERRED) for partition: orders-2: PREFERRED_LEADER_NOT_AVAILABLE: ...
"""

from __future__ import annotations

import argparse
import json
import sys

from kafka.clients.admin import AdminClient
from kafka.clients.errors import KafkaError
from kafka.protocol.errors import Errors
from kafka.protocol.messages.elect_leaders import PREFERRED, UNCLEAN
from kafka.tools.command_line_utils import load_props, run
from kafka.utils.topic_partition import TopicPartition

ELECTION_TYPES = {"PREFERRED": PREFERRED, "UNCLEAN": UNCLEAN}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-leader-election", description="Elect leaders for partitions.")
    p.add_argument("--bootstrap-server", required=True)
    p.add_argument("--admin.config", dest="admin_config", help="a properties file of admin client configs")
    p.add_argument("--election-type", required=True, type=str.upper, choices=sorted(ELECTION_TYPES))
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--topic", help="the topic (with --partition)")
    which.add_argument("--all-topic-partitions", action="store_true", help="every partition of every topic")
    which.add_argument("--path-to-json-file", help='{"partitions": [{"topic": ..., "partition": ...}]}')
    p.add_argument("--partition", type=int, help="the partition of --topic")
    return p


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    partitions = _partitions(args)
    election = args.election_type
    with AdminClient({"bootstrap.servers": args.bootstrap_server, **load_props(args.admin_config)}) as admin:
        results = admin.elect_leaders(ELECTION_TYPES[election], partitions)
    succeeded = [tp for tp, error in results.items() if error is None]
    noop = [tp for tp, error in results.items() if error is not None
            and error.error == Errors.ELECTION_NOT_NEEDED]
    failed = {tp: error for tp, error in results.items() if error is not None and tp not in noop}
    if succeeded:
        print(f"Successfully completed leader election ({election}) for partitions {_names(succeeded)}")
    if noop:
        print(f"Valid replica already elected for partitions {_names(noop)}")
    for tp, error in sorted(failed.items()):
        print(f"Error completing leader election ({election}) for partition: {tp}: {error}")
    if failed:
        raise KafkaError(Errors.UNKNOWN_SERVER_ERROR, f"{len(failed)} replica(s) could not be elected")
    return 0


def _partitions(args) -> list[TopicPartition] | None:
    if args.all_topic_partitions:
        return None
    if args.path_to_json_file:
        with open(args.path_to_json_file, encoding="utf-8") as f:
            return [TopicPartition(p["topic"], int(p["partition"])) for p in json.load(f)["partitions"]]
    if args.partition is None:
        raise ValueError("--topic needs --partition")
    return [TopicPartition(args.topic, args.partition)]


def _names(partitions: list[TopicPartition]) -> str:
    return ", ".join(str(tp) for tp in sorted(partitions))


if __name__ == "__main__":
    sys.exit(main())
