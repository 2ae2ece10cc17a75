"""kafka-topics: create, list, describe, alter and delete topics (Kafka's org.apache.kafka.tools.TopicCommand,
``bin/kafka-topics.sh``), on the AdminClient.

    kafka-topics --bootstrap-server 127.0.0.1:9092 --create --topic T --partitions 3 \
        --config retention.ms=60000
    kafka-topics --bootstrap-server 127.0.0.1:9092 --list
    kafka-topics --bootstrap-server 127.0.0.1:9092 --describe [--topic T]
        (Configs: every config not at Kafka's default, the topic's own and the broker's static ones)
    kafka-topics --bootstrap-server 127.0.0.1:9092 --describe --under-replicated-partitions
        (also --under-min-isr-partitions, --at-min-isr-partitions, --unavailable-partitions: only the
        partition lines that match, as Kafka prints them; Elr and LastKnownElr come from
        DescribeTopicPartitions, read --partition-size-limit-per-response partitions at a time)
    kafka-topics --bootstrap-server 127.0.0.1:9092 --alter --topic T --partitions 6
    kafka-topics --bootstrap-server 127.0.0.1:9092 --delete --topic T
"""

from __future__ import annotations

import argparse
import re
import sys

from kafka.clients.admin import TOPIC_RESOURCE, AdminClient, NewTopic
from kafka.clients.errors import KafkaError
from kafka.protocol.errors import Errors
from kafka.tools.command_line_utils import java_hash_map_order, load_props, parse_key_values, run
from kafka.utils.uuid import uuid_to_string

DEFAULT_CONFIG = 5  # DescribeConfigsResponse.ConfigSource


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-topics",
                                description="Create, delete, describe, or change a topic.")
    p.add_argument("--bootstrap-server", required=True,
                   help="the broker(s) to connect to, host:port[,host:port]")
    p.add_argument("--command-config", help="a properties file of admin client configs")
    action = p.add_mutually_exclusive_group(required=True)
    for name in ("create", "list", "describe", "alter", "delete"):
        action.add_argument(f"--{name}", action="store_true")
    p.add_argument("--topic", help="the topic (a regular expression for --list/--describe/--delete)")
    p.add_argument("--partitions", type=int, help="partition count (--create, or the new count for --alter)")
    p.add_argument("--replication-factor", type=int, default=-1)
    p.add_argument("--config", action="append", help="a topic config override, name=value (repeatable)")
    p.add_argument("--if-not-exists", action="store_true")
    p.add_argument("--if-exists", action="store_true")
    p.add_argument("--exclude-internal", action="store_true")
    p.add_argument("--under-replicated-partitions", action="store_true",
                   help="--describe only partitions whose ISR is smaller than their replica set")
    p.add_argument("--under-min-isr-partitions", action="store_true",
                   help="--describe only partitions whose ISR is smaller than min.insync.replicas")
    p.add_argument("--at-min-isr-partitions", action="store_true",
                   help="--describe only partitions whose ISR is exactly min.insync.replicas")
    p.add_argument("--unavailable-partitions", action="store_true",
                   help="--describe only partitions without a live leader")
    p.add_argument("--partition-size-limit-per-response", type=int, default=2000,
                   help="the maximum partition size to be included in one DescribeTopicPartitions response")
    return p


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    config = {"bootstrap.servers": args.bootstrap_server, **load_props(args.command_config)}
    with AdminClient(config) as admin:
        if args.create:
            return create(admin, args)
        if args.list:
            for name in sorted(_matching(admin, args.topic, not args.exclude_internal)):
                print(name)
            return 0
        if args.describe:
            return describe(admin, args)
        if args.alter:
            return alter(admin, args)
        return delete(admin, args)


def _matching(admin: AdminClient, pattern: str | None, include_internal: bool = True) -> list[str]:
    names = admin.list_topics(include_internal=include_internal)
    if pattern is None:
        return sorted(names)
    return sorted(n for n in names if re.fullmatch(pattern, n))


def create(admin: AdminClient, args) -> int:
    _require(args.topic, "--topic")
    topic = NewTopic(args.topic, args.partitions or -1, args.replication_factor,
                     parse_key_values(args.config, "--config"))
    error = admin.create_topics([topic])[args.topic]
    if error is not None:
        if error.error == Errors.TOPIC_ALREADY_EXISTS and args.if_not_exists:
            return 0
        raise error
    print(f"Created topic {args.topic}.")
    return 0


def describe(admin: AdminClient, args) -> int:
    names = _matching(admin, args.topic)
    if args.topic and not names and not args.if_exists:
        raise KafkaError(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                         f"topic '{args.topic}' does not exist as expected")
    partition_filter = _partition_filter(admin, args)
    described = admin.describe_topics(names, args.partition_size_limit_per_response)
    # Kafka's TopicCommand prints the topics, and each one's configs, in the order of Java HashMaps.
    for name in java_hash_map_order(sorted(described), initial_capacity=len(described)):
        desc, configs = described[name], _configs(admin, name)
        if partition_filter is None:  # Kafka prints the topic's line only when no filter is given
            replication = len(desc.partitions[0].replicas) if desc.partitions else 0
            # Every config not at Kafka's default: the topic's own and those server.properties sets.
            set_here = ",".join(f"{key}={configs[key].value}" for key in java_hash_map_order(list(configs))
                                if configs[key].source != DEFAULT_CONFIG)
            print(f"Topic: {name}\tTopicId: {_topic_id(desc.topic_id)}\tPartitionCount: "
                  f"{len(desc.partitions)}\t"
                  f"ReplicationFactor: {replication}\tConfigs: {set_here}")
        min_isr = int(configs["min.insync.replicas"].value) if "min.insync.replicas" in configs else 1
        for p in desc.partitions:
            if partition_filter is not None and not partition_filter(p, min_isr):
                continue
            print(f"\tTopic: {name}\tPartition: {p.partition}\tLeader: "
                  f"{p.leader if p.leader >= 0 else 'none'}\t"
                  f"Replicas: {','.join(map(str, p.replicas))}\tIsr: {','.join(map(str, p.isr))}"
                  f"\tElr: {_nodes(p.elr)}\tLastKnownElr: {_nodes(p.last_known_elr)}")
    return 0


def _partition_filter(admin: AdminClient, args):
    """The --*-partitions option given, as a test of (partition, min.insync.replicas); None if none."""
    if args.under_replicated_partitions:
        return lambda p, _: len(p.isr) < len(p.replicas)
    if args.under_min_isr_partitions:
        return lambda p, min_isr: len(p.isr) < min_isr
    if args.at_min_isr_partitions:
        return lambda p, min_isr: len(p.isr) == min_isr
    if args.unavailable_partitions:
        _, _, brokers = admin.describe_cluster()
        live = {broker.node_id for broker in brokers}
        return lambda p, _: p.leader < 0 or p.leader not in live
    return None


def _nodes(ids) -> str:
    """Kafka's TopicCommand: the ids joined by commas, N/A when the broker did not say (Metadata only)."""
    return ",".join(map(str, ids)) if ids is not None else "N/A"


def _topic_id(topic_id) -> str:
    return uuid_to_string(topic_id) if topic_id is not None else "N/A"


def _configs(admin: AdminClient, topic: str) -> dict:
    """The topic's configs by name ({} from a broker without DescribeConfigs: describe anyway)."""
    try:
        return admin.describe_configs(TOPIC_RESOURCE, topic)
    except KafkaError:
        return {}


def alter(admin: AdminClient, args) -> int:
    _require(args.topic, "--topic")
    _require(args.partitions, "--partitions")
    error = admin.create_partitions({args.topic: args.partitions})[args.topic]
    if error is not None:
        raise error
    return 0


def delete(admin: AdminClient, args) -> int:
    _require(args.topic, "--topic")
    names = _matching(admin, args.topic)
    if not names:
        if args.if_exists:
            return 0
        raise KafkaError(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                         f"topic '{args.topic}' does not exist as expected")
    for error in admin.delete_topics(names).values():
        if error is not None:
            raise error
    return 0


def _require(value, flag: str) -> None:
    if value is None:
        raise ValueError(f"missing required argument {flag}")


if __name__ == "__main__":
    sys.exit(main())
