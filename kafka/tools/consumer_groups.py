"""kafka-consumer-groups: list, describe, reset and delete consumer groups (Kafka's
org.apache.kafka.tools.consumer.group.ConsumerGroupCommand, ``bin/kafka-consumer-groups.sh``), on the
AdminClient. The tables are printed as Kafka's printf formats print them (columns at least 15 wide),
so the two tools' output is the same line for line (tests/jvm/test_tools_side_by_side.py).

    kafka-consumer-groups --bootstrap-server 127.0.0.1:9092 --list
    kafka-consumer-groups --bootstrap-server 127.0.0.1:9092 --list [--type] [--state]
    kafka-consumer-groups --bootstrap-server 127.0.0.1:9092 --describe --group G [--group G2] \\
        [--members|--state] [--verbose]
    kafka-consumer-groups --bootstrap-server 127.0.0.1:9092 --reset-offsets --group G --topic T \\
        --to-earliest|--to-latest|--to-offset N [--execute]
    kafka-consumer-groups --bootstrap-server 127.0.0.1:9092 --delete --group G

The flags and the tables are Kafka's. Kafka's ConsumerGroupService is the AdminClient here:
describe_consumer_groups and list_consumer_group_offsets at the group's coordinator, list_offsets at
each partition's leader for the log end offset (LAG = LOG-END-OFFSET - CURRENT-OFFSET), and for a
reset alter_consumer_group_offsets, the "simple" commit a group may take only while it has no
members. Groups of both protocols show: a KIP-848 group (``group.protocol=consumer``) is described
with ConsumerGroupDescribe, and ``--members --verbose`` and ``--state --verbose`` add its epochs and
target assignment as Kafka 4's tool does (KIP-1099).
"""

from __future__ import annotations

import argparse
import sys

from kafka.clients.admin import AdminClient
from kafka.clients.admin.descriptions import ConsumerGroupDescription
from kafka.clients.consumer import OffsetAndMetadata
from kafka.clients.errors import KafkaError
from kafka.protocol.errors import Errors
from kafka.tools.command_line_utils import load_props
from kafka.utils.logging import configure_tool_logging
from kafka.utils.topic_partition import TopicPartition


class CommandError(Exception):
    """Printed as "Error: ..." with exit status 1, as Kafka's tool does."""


def describe_group(admin: AdminClient, group_id: str) -> ConsumerGroupDescription:
    """The group, or a Dead one for a group that does not exist: the Admin fails with GROUP_ID_NOT_FOUND
    from DescribeGroups v6 on (KIP-1043), and Kafka's command treats that as Dead, as before."""
    try:
        return admin.describe_consumer_groups([group_id])[group_id]
    except KafkaError as e:
        if e.error == Errors.GROUP_ID_NOT_FOUND:
            return ConsumerGroupDescription(group_id, "Dead", "", "", [])
        raise CommandError(f"cannot describe group '{group_id}': {e.error.name}") from e


def committed_offsets(admin: AdminClient, group_id: str) -> dict[TopicPartition, OffsetAndMetadata]:
    try:
        return admin.list_consumer_group_offsets(group_id, with_metadata=True)
    except KafkaError as e:
        raise CommandError(f"cannot fetch offsets of group '{group_id}': {e.error.name}") from e


def topic_partitions(admin: AdminClient, topics: list[str] | None) -> list[TopicPartition]:
    """Every partition of these topics (None: of every topic but the internal ones)."""
    existing = admin.list_topics(include_internal=topics is not None)
    if topics is None:
        topics = sorted(existing)
    missing = [t for t in topics if t not in existing]
    if missing:
        raise CommandError(f"topic(s) {', '.join(missing)} do not exist")
    return sorted(TopicPartition(name, p.partition)
                  for name, description in admin.describe_topics(topics).items()
                  for p in description.partitions)


def log_offsets(admin: AdminClient, partitions: list[TopicPartition], spec: str) -> dict[TopicPartition, int]:
    """The earliest or latest offset of each partition whose topic still exists: a deleted topic's
    committed offsets show "-" for the log end, rather than failing the whole table."""
    existing = admin.list_topics(include_internal=True)
    alive = [tp for tp in partitions if tp.topic in existing]
    offsets = admin.list_offsets({tp: spec for tp in alive}) if alive else {}
    return {tp: offset for tp, (offset, _) in offsets.items()}


def left(value, width: int) -> str:
    """Java's %-<width>s: the value, padded with spaces to at least width characters."""
    return str(value).ljust(width)


def no_active_members(group_id: str) -> None:
    """Kafka's shouldPrintMemberState prints this on standard error, before the (empty) table."""
    print(f"\nConsumer group '{group_id}' has no active members.", file=sys.stderr)


def describe(admin: AdminClient, group_id: str, verbose: bool) -> None:
    """Kafka's printOffsets: columns at least 15 wide (PARTITION 10), wider for longer names; with
    --verbose, the leader epoch each committed offset was read at ("-" if the consumer sent none)."""
    group = describe_group(admin, group_id)
    if group.state == "Dead":
        raise CommandError(f"Consumer group '{group_id}' does not exist.")
    committed = committed_offsets(admin, group_id)
    owners = {tp: member for member in group.members for tp in member.assignment}
    partitions = sorted(set(committed) | set(owners))
    log_end = log_offsets(admin, partitions, "latest")
    if not group.members:
        no_active_members(group_id)
    rows = []
    for tp in partitions:
        member = owners.get(tp)
        offset, end = committed.get(tp), log_end.get(tp)
        current = offset.offset if offset is not None else None
        epoch = offset.leader_epoch if offset is not None and offset.leader_epoch >= 0 else "-"
        lag = end - current if current is not None and end is not None else "-"
        rows.append([group_id, tp.topic, tp.partition, epoch, "-" if current is None else current,
                     "-" if end is None else end, lag, member.member_id if member else "-",
                     member.host if member else "-", member.client_id if member else "-"])
    for member in group.members:  # members that own nothing still show up, as in Kafka
        if not member.assignment:
            rows.append([group_id, "-", "-", "-", "-", "-", "-", member.member_id, member.host,
                         member.client_id])
    if not rows:
        return
    g, t, c, h = (max([15] + [len(str(r[i])) for r in rows]) for i in (0, 1, 7, 8))
    print()
    for r in [["GROUP", "TOPIC", "PARTITION", "LEADER-EPOCH", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG",
               "CONSUMER-ID", "HOST", "CLIENT-ID"], *rows]:
        epoch = f"{left(r[3], 15)} " if verbose else ""
        print(f"{left(r[0], g)} {left(r[1], t)} {left(r[2], 10)} {epoch}{left(r[4], 15)} {left(r[5], 15)} "
              f"{left(r[6], 15)} {left(r[7], c)} {left(r[8], h)} {r[9]}")


def assignment_text(partitions) -> str:
    """Kafka's getAssignmentString: topic:p,p;topic:p (topics sorted), or "-"."""
    if not partitions:
        return "-"
    by_topic: dict[str, list[int]] = {}
    for tp in partitions:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    return ";".join(sorted(f"{t}:{','.join(str(p) for p in sorted(ps))}" for t, ps in by_topic.items()))


def describe_members(admin: AdminClient, group_id: str, verbose: bool) -> None:
    """Kafka's printMembers: GROUP-INSTANCE-ID when a member is static (KIP-345); with --verbose, each
    member's epoch and assignment, and the target ones (KIP-1099; "-" where a classic group has none)."""
    group = describe_group(admin, group_id)
    if group.state == "Dead":
        raise CommandError(f"Consumer group '{group_id}' does not exist.")
    if not group.members:
        no_active_members(group_id)
    rows = []
    for m in group.members:
        target_epoch = group.target_assignment_epoch if group.type == "Consumer" else None
        rows.append([group_id, m.member_id, m.group_instance_id or "", m.host, m.client_id, len(m.assignment),
                     "-" if m.member_epoch is None else m.member_epoch, assignment_text(m.assignment),
                     "-" if target_epoch is None else target_epoch, assignment_text(m.target_assignment)])
    header = ["GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS",
              "CURRENT-EPOCH",
              "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"]
    static = any(r[2] for r in rows)
    g, c, h, cl = (max([15] + [len(str(r[i])) for r in rows]) for i in (0, 1, 3, 4))
    instance = max([17] + [len(r[2]) for r in rows])
    current, target = (max([20] + [len(r[i]) for r in rows]) for i in (7, 9))
    print()
    for r in [header, *rows]:
        line = f"{left(r[0], g)} {left(r[1], c)} " + (f"{left(r[2], instance)} " if static else "") + \
            f"{left(r[3], h)} {left(r[4], cl)} {left(r[5], 15)} "
        if verbose:
            line += f"{left(r[6], 15)} {left(r[7], current)} {left(r[8], 15)} {left(r[9], target)}"
        print(line)


def describe_state(admin: AdminClient, group_id: str, verbose: bool) -> None:
    """Kafka's printStates: GROUP-EPOCH and TARGET-ASSIGNMENT-EPOCH with --verbose ("-" for a classic
    group)."""
    group = describe_group(admin, group_id)
    node = group.coordinator
    coordinator = f"{node.host}:{node.port}  ({node.node_id})" if node is not None else "-"
    g, c = max(15, len(group_id)), max(25, len(coordinator))
    row = [group_id, coordinator, group.assignor or "-", group.state]
    header = ["GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE"]
    print()
    for r in (header + ["GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS"],
              row + ["-" if group.group_epoch is None else group.group_epoch,
                     "-" if group.target_assignment_epoch is None else group.target_assignment_epoch,
                     len(group.members)]):
        epochs = f"{left(r[4], 15)} {left(r[5], 25)} " if verbose else ""
        print(f"{left(r[0], g)} {left(r[1], c)} {left(r[2], 20)} {left(r[3], 20)} {epochs}{r[6]}")


def list_groups(admin: AdminClient, show_type: bool, show_state: bool) -> None:
    """Kafka's printGroupInfo: the GROUP column 10 wider than the longest id (at least 15)."""
    groups = admin.list_groups()
    if not (show_type or show_state):
        for group_id, _, _ in groups:
            print(group_id)
        return
    width = max((max(15, len(g)) for g, _, _ in groups), default=15) + 10
    for g, s, t in [("GROUP", "STATE", "TYPE"), *groups]:
        print(left(g, width) + (f" {left(t or 'Unknown', 20)}" if show_type else "")
              + (f" {left(s, 20)}" if show_state else ""))


def reset_offsets(admin: AdminClient, args) -> None:
    group = describe_group(admin, args.group)
    if group.state not in ("Empty", "Dead"):
        raise CommandError(f"Assignments can only be reset if the group '{args.group}' is inactive, "
                           f"but the current state is {group.state}.")
    partitions = topic_partitions(admin, None if args.all_topics else args.topic)
    earliest = log_offsets(admin, partitions, "earliest")
    latest = log_offsets(admin, partitions, "latest")
    if args.to_earliest:
        target = earliest
    elif args.to_latest:
        target = latest
    else:  # --to-offset: clamped into the log's range, as Kafka does
        target = {tp: min(max(args.to_offset, earliest[tp]), latest[tp]) for tp in partitions}
    if args.execute:
        commit_offsets(admin, args.group, target)
    print_offsets_to_reset(args.group, {tp: target[tp] for tp in partitions})


def print_offsets_to_reset(group_id: str, offsets: dict[TopicPartition, int]) -> None:
    """Kafka's GroupOffsetsResetter.printOffsetsToReset: GROUP and TOPIC at least 15 wide."""
    g, t = max(15, len(group_id)), max([15] + [len(tp.topic) for tp in offsets])
    if offsets:
        print(f"\n{left('GROUP', g)} {left('TOPIC', t)} {left('PARTITION', 10)} NEW-OFFSET", end="")
    for tp, offset in offsets.items():
        print(f"\n{left(group_id, g)} {left(tp.topic, t)} {left(tp.partition, 10)} {offset}", end="")
    print()


def commit_offsets(admin: AdminClient, group_id: str, offsets: dict[TopicPartition, int]) -> None:
    results = admin.alter_consumer_group_offsets(group_id,
                                                 {tp: OffsetAndMetadata(o) for tp, o in offsets.items()})
    errors = {e.error.name for e in results.values() if e is not None}
    if errors:
        raise CommandError(f"failed to commit the new offsets of group '{group_id}': "
                           f"{', '.join(sorted(errors))}")


def delete(admin: AdminClient, group_ids: list[str]) -> None:
    failed = {g: e.error for g, e in admin.delete_consumer_groups(group_ids).items() if e is not None}
    if not failed:
        print("Deletion of requested consumer groups (" + ", ".join(f"'{g}'" for g in group_ids)
              + ") was successful.")
        return
    print("Deletion of some consumer groups failed:")
    for group_id, error in failed.items():
        print(f"* Group '{group_id}' could not be deleted due to: {error.name}: {error.message}")
    raise CommandError("")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kafka-consumer-groups",
                                     description="List, describe, reset and delete consumer groups.")
    parser.add_argument("--bootstrap-server", required=True, help="host:port of a broker")
    parser.add_argument("--command-config", help="a properties file of admin client configs")
    parser.add_argument("--timeout", type=int, default=5000,
                        help="how long to wait for each admin call, in ms (default: 5000, as Kafka's tool)")
    actions = parser.add_mutually_exclusive_group(required=True)
    actions.add_argument("--list", action="store_true", help="list all consumer groups")
    actions.add_argument("--describe", action="store_true", help="describe a group: offsets, lag, owners")
    actions.add_argument("--reset-offsets", action="store_true", help="reset an inactive group's offsets")
    actions.add_argument("--delete", action="store_true", help="delete empty groups and their offsets")
    parser.add_argument("--group", action="append", help="the consumer group (repeatable for --delete)")
    parser.add_argument("--members", action="store_true",
                        help="with --describe: the members and their partitions")
    parser.add_argument("--state", action="store_true",
                        help="with --describe: the group's state and coordinator; with --list: each group's "
                             "state")
    parser.add_argument("--offsets", action="store_true",
                        help="with --describe: offsets and lag (the default)")
    parser.add_argument("--type", action="store_true",
                        help="with --list: each group's type (Classic, Consumer)")
    parser.add_argument("--verbose", action="store_true",
                        help="with --describe: more columns (leader epochs, "
                        "member and target assignments, group epochs)")
    parser.add_argument("--topic", action="append", help="topic whose offsets to reset (repeatable)")
    parser.add_argument("--all-topics", action="store_true", help="reset offsets of every topic")
    targets = parser.add_mutually_exclusive_group()
    targets.add_argument("--to-earliest", action="store_true", help="reset to the earliest offset")
    targets.add_argument("--to-latest", action="store_true", help="reset to the latest offset")
    targets.add_argument("--to-offset", type=int, help="reset to this offset")
    parser.add_argument("--execute", action="store_true", help="do the reset (without it: show the plan)")
    parser.add_argument("--dry-run", action="store_true", help="only show the plan (the default)")
    args = parser.parse_args(argv)
    if (args.describe or args.reset_offsets or args.delete) and not args.group:
        parser.error("option --group is required with --describe, --reset-offsets and --delete")
    if args.reset_offsets:
        if not (args.to_earliest or args.to_latest or args.to_offset is not None):
            parser.error("--reset-offsets needs one of --to-earliest, --to-latest, --to-offset")
        if not (args.topic or args.all_topics):
            parser.error("--reset-offsets needs --topic or --all-topics")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    configure_tool_logging()
    try:
        config = {"bootstrap.servers": args.bootstrap_server, "default.api.timeout.ms": args.timeout,
                  **load_props(args.command_config)}
        with AdminClient(config) as admin:
            run(admin, args)
    except CommandError as e:
        if str(e):
            print(f"Error: {e}", file=sys.stderr)
        return 1
    except (KafkaError, OSError, ValueError) as e:  # a broker error, a timeout, a bad --bootstrap-server
        print(f"Error: {e}", file=sys.stderr)
        return 1
    return 0


def run(admin: AdminClient, args: argparse.Namespace) -> None:
    if args.list:
        list_groups(admin, args.type, args.state)
    elif args.describe:
        for group_id in sorted(set(args.group)):  # Kafka's describeGroups collects them in a TreeMap
            if args.members:
                describe_members(admin, group_id, args.verbose)
            elif args.state:
                describe_state(admin, group_id, args.verbose)
            else:
                describe(admin, group_id, args.verbose)
    elif args.reset_offsets:
        args.group = args.group[0]
        reset_offsets(admin, args)
    else:
        delete(admin, args.group)


if __name__ == "__main__":
    sys.exit(main())
