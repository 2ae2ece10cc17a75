"""kafka-consumer-groups: list, describe, reset and delete consumer groups (Kafka's
kafka.admin.ConsumerGroupCommand, ``bin/kafka-consumer-groups.sh``).

    kafka-consumer-groups --bootstrap-server 127.0.0.1:9092 --list
    kafka-consumer-groups --bootstrap-server 127.0.0.1:9092 --describe --group G
    kafka-consumer-groups --bootstrap-server 127.0.0.1:9092 --reset-offsets --group G --topic T \\
        --to-earliest|--to-latest|--to-offset N [--execute]
    kafka-consumer-groups --bootstrap-server 127.0.0.1:9092 --delete --group G

The flags and the tables are Kafka's. Under them: FindCoordinator, then DescribeGroups and
OffsetFetch at the group's coordinator, ListOffsets at each partition's leader for the log end
offset (LAG = LOG-END-OFFSET - CURRENT-OFFSET), and for a reset an OffsetCommit with generation -1,
the "simple" commit a group may take only while it has no members. It speaks the protocol through
``kafka.protocol`` over plain sockets; kafka.clients may take that part over later.
"""

from __future__ import annotations

import argparse
import socket
import struct
import sys

import kafka.protocol.messages  # noqa: F401  (fills the API registry)
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.consumer_protocol import deserialize_assignment
from kafka.protocol.errors import Errors
from kafka.protocol.header import decode_response, encode_request

EARLIEST_TIMESTAMP, LATEST_TIMESTAMP = -2, -1


class CommandError(Exception):
    """Printed as "Error: ..." with exit status 1, as Kafka's tool does."""


class BrokerConnection:
    """One blocking connection; requests go out one at a time."""

    def __init__(self, host: str, port: int, timeout: float = 30.0) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.correlation_id = 0

    def send(self, api_key: ApiKey, version: int, body: dict):
        api = APIS[api_key]
        self.correlation_id += 1
        self.sock.sendall(encode_request(api, version, self.correlation_id, "kafka-consumer-groups", body))
        size = struct.unpack(">i", self._read(4))[0]
        _, response = decode_response(api, version, self._read(size))
        return response

    def _read(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise CommandError("the broker closed the connection")
            buf += chunk
        return bytes(buf)

    def close(self) -> None:
        self.sock.close()


class ConsumerGroupService:
    """Kafka's ConsumerGroupCommand.ConsumerGroupService: the admin calls behind each option."""

    def __init__(self, bootstrap_server: str) -> None:
        host, _, port = bootstrap_server.rpartition(":")
        self.bootstrap = BrokerConnection(host, int(port))
        self.connections: dict[tuple[str, int], BrokerConnection] = {}

    def close(self) -> None:
        for conn in [self.bootstrap, *self.connections.values()]:
            conn.close()

    def connect(self, host: str, port: int) -> BrokerConnection:
        if (host, port) not in self.connections:
            self.connections[(host, port)] = BrokerConnection(host, port)
        return self.connections[(host, port)]

    def coordinator(self, group_id: str) -> BrokerConnection:
        response = self.bootstrap.send(ApiKey.FIND_COORDINATOR, 3, dict(key=group_id, key_type=0))
        if response.error_code != Errors.NONE:
            raise CommandError(f"cannot find the coordinator of group '{group_id}': {Errors(response.error_code).name}")
        return self.connect(response.host, response.port)

    def list_groups(self) -> list[str]:
        response = self.bootstrap.send(ApiKey.LIST_GROUPS, 4, dict(states_filter=[]))
        return sorted(g.group_id for g in response.groups)

    def describe_group(self, group_id: str):
        response = self.coordinator(group_id).send(ApiKey.DESCRIBE_GROUPS, 5, dict(groups=[group_id]))
        group = response.groups[0]
        if group.error_code != Errors.NONE:
            raise CommandError(f"cannot describe group '{group_id}': {Errors(group.error_code).name}")
        return group

    def committed_offsets(self, group_id: str) -> dict[tuple[str, int], int]:
        response = self.coordinator(group_id).send(ApiKey.OFFSET_FETCH, 7, dict(group_id=group_id, topics=None))
        if response.error_code != Errors.NONE:
            raise CommandError(f"cannot fetch offsets of group '{group_id}': {Errors(response.error_code).name}")
        return {(t.name, p.partition_index): p.committed_offset
                for t in response.topics for p in t.partitions if p.committed_offset >= 0}

    def topic_partitions(self, topics: list[str] | None) -> tuple[dict[tuple[str, int], tuple[str, int]], list]:
        """{(topic, partition): leader (host, port)} for the given topics (None: all non-internal)."""
        body = dict(topics=None if topics is None else [dict(name=t) for t in topics],
                    allow_auto_topic_creation=False)
        response = self.bootstrap.send(ApiKey.METADATA, 9, body)
        brokers = {b.node_id: (b.host, b.port) for b in response.brokers}
        leaders, missing = {}, []
        for topic in response.topics:
            if topic.error_code != Errors.NONE:
                missing.append(topic.name)
            elif topics is not None or not topic.is_internal:
                for p in topic.partitions:
                    leaders[(topic.name, p.partition_index)] = brokers[p.leader_id]
        return leaders, missing

    def list_offsets(self, partitions: list[tuple[str, int]], timestamp: int) -> dict[tuple[str, int], int]:
        leaders, _ = self.topic_partitions(sorted({t for t, _ in partitions}))
        result = {}
        for leader in set(leaders.values()):
            mine = [tp for tp in partitions if leaders.get(tp) == leader]
            topics: dict[str, list[dict]] = {}
            for topic, partition in mine:
                topics.setdefault(topic, []).append(dict(partition_index=partition, timestamp=timestamp))
            response = self.connect(*leader).send(ApiKey.LIST_OFFSETS, 6, dict(
                replica_id=-1, isolation_level=0, topics=[dict(name=t, partitions=ps) for t, ps in topics.items()]))
            for t in response.topics:
                for p in t.partitions:
                    if p.error_code == Errors.NONE:
                        result[(t.name, p.partition_index)] = p.offset
        return result

    def commit_offsets(self, group_id: str, offsets: dict[tuple[str, int], int]) -> None:
        topics: dict[str, list[dict]] = {}
        for (topic, partition), offset in sorted(offsets.items()):
            topics.setdefault(topic, []).append(dict(partition_index=partition, committed_offset=offset,
                                                     committed_metadata=""))
        response = self.coordinator(group_id).send(ApiKey.OFFSET_COMMIT, 8, dict(
            group_id=group_id, generation_id_or_member_epoch=-1, member_id="",
            topics=[dict(name=t, partitions=ps) for t, ps in topics.items()]))
        errors = {Errors(p.error_code).name for t in response.topics for p in t.partitions if p.error_code}
        if errors:
            raise CommandError(f"failed to commit the new offsets of group '{group_id}': {', '.join(sorted(errors))}")

    def delete_groups(self, group_ids: list[str]) -> dict[str, Errors]:
        results = {}
        for group_id in group_ids:
            response = self.coordinator(group_id).send(ApiKey.DELETE_GROUPS, 2, dict(groups_names=[group_id]))
            results.update({r.group_id: Errors(r.error_code) for r in response.results})
        return results


def print_table(header: list[str], rows: list[list], widths: list[int] | None = None) -> None:
    widths = widths or [max(len(str(c)) for c in column) for column in zip(header, *rows, strict=True)]
    print()
    for row in [header, *rows]:
        print(" ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def describe(service: ConsumerGroupService, group_id: str) -> None:
    group = service.describe_group(group_id)
    if group.group_state == "Dead":
        raise CommandError(f"Consumer group '{group_id}' does not exist.")
    committed = service.committed_offsets(group_id)
    owners: dict[tuple[str, int], object] = {}
    for member in group.members:
        if member.member_assignment:
            for tp in deserialize_assignment(member.member_assignment).assigned_partitions:
                for partition in tp.partitions:
                    owners[(tp.topic, partition)] = member
    partitions = sorted(set(committed) | set(owners))
    log_end = service.list_offsets(partitions, LATEST_TIMESTAMP) if partitions else {}
    if not group.members:
        print(f"\nConsumer group '{group_id}' has no active members.")
    rows = []
    for tp in partitions:
        member = owners.get(tp)
        current, end = committed.get(tp), log_end.get(tp)
        lag = end - current if current is not None and end is not None else "-"
        rows.append([group_id, tp[0], tp[1], "-" if current is None else current, "-" if end is None else end, lag,
                     member.member_id if member else "-", member.client_host if member else "-",
                     member.client_id if member else "-"])
    for member in group.members:  # members that own nothing still show up, as in Kafka
        if member not in owners.values():
            rows.append([group_id, "-", "-", "-", "-", "-", member.member_id, member.client_host, member.client_id])
    print_table(["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID",
                 "HOST", "CLIENT-ID"], rows)


def reset_offsets(service: ConsumerGroupService, args) -> None:
    group = service.describe_group(args.group)
    if group.group_state not in ("Empty", "Dead"):
        raise CommandError(f"Assignments can only be reset if the group '{args.group}' is inactive, "
                           f"but the current state is {group.group_state}.")
    if args.all_topics:
        leaders, _ = service.topic_partitions(None)
    else:
        leaders, missing = service.topic_partitions(args.topic)
        if missing:
            raise CommandError(f"topic(s) {', '.join(missing)} do not exist")
    partitions = sorted(leaders)
    earliest = service.list_offsets(partitions, EARLIEST_TIMESTAMP)
    latest = service.list_offsets(partitions, LATEST_TIMESTAMP)
    if args.to_earliest:
        target = earliest
    elif args.to_latest:
        target = latest
    else:  # --to-offset: clamped into the log's range, as Kafka does
        target = {tp: min(max(args.to_offset, earliest[tp]), latest[tp]) for tp in partitions}
    if args.execute:
        service.commit_offsets(args.group, target)
    print_table(["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"],
                [[args.group, t, p, target[(t, p)]] for t, p in partitions], [30, 30, 10, 15])


def delete(service: ConsumerGroupService, group_ids: list[str]) -> None:
    results = service.delete_groups(group_ids)
    failed = {g: e for g, e in results.items() if e != Errors.NONE}
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
    actions = parser.add_mutually_exclusive_group(required=True)
    actions.add_argument("--list", action="store_true", help="list all consumer groups")
    actions.add_argument("--describe", action="store_true", help="describe a group: offsets, lag, owners")
    actions.add_argument("--reset-offsets", action="store_true", help="reset an inactive group's offsets")
    actions.add_argument("--delete", action="store_true", help="delete empty groups and their offsets")
    parser.add_argument("--group", action="append", help="the consumer group (repeatable for --delete)")
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
    try:
        service = ConsumerGroupService(args.bootstrap_server)
    except (OSError, ValueError) as e:
        print(f"Error: cannot connect to {args.bootstrap_server}: {e}", file=sys.stderr)
        return 1
    try:
        if args.list:
            for group_id in service.list_groups():
                print(group_id)
        elif args.describe:
            for group_id in args.group:
                describe(service, group_id)
        elif args.reset_offsets:
            args.group = args.group[0]
            reset_offsets(service, args)
        else:
            delete(service, args.group)
    except CommandError as e:
        if str(e):
            print(f"Error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    finally:
        service.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
