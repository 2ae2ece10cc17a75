"""kafka-metadata-quorum: the state of the KRaft metadata quorum (Kafka's
org.apache.kafka.tools.MetadataQuorumCommand, ``bin/kafka-metadata-quorum.sh``, KIP-595 and KIP-836).

    kafka-metadata-quorum --bootstrap-server 127.0.0.1:9092 describe --status
    kafka-metadata-quorum --bootstrap-server 127.0.0.1:9092 describe --replication
    kafka-metadata-quorum --bootstrap-controller 127.0.0.1:9093 describe --status
    kafka-metadata-quorum --bootstrap-controller 127.0.0.1:9093 \
        --command-config controller-4.properties add-controller
    kafka-metadata-quorum --bootstrap-controller 127.0.0.1:9093 remove-controller \
        --controller-id 1 --controller-directory-id <directory.id of its metadata log directory>

Seed 004: the controllers replicate the metadata log with Raft. --status shows who leads it and at
which epoch, how far it is committed (the high watermark) and how far the slowest follower lags;
--replication shows each voter and observer (broker) with its log end offset and when it last
fetched. The request (DescribeQuorum) goes to any broker, which forwards it to the active controller,
or with --bootstrap-controller straight to the controllers (KIP-919).

KIP-853: a quorum formatted with --standalone or --initial-controllers can change its voters.
`add-controller` reads the new controller's own properties file (--command-config): its node.id, the
directory.id of its metadata.log.dir, and its controller listeners, and asks the leader to add it
(AddRaftVoter); the new controller must be running, as an observer that has caught up.
`remove-controller` asks the leader to remove one voter (RemoveRaftVoter). One change at a time.
"""

from __future__ import annotations

import argparse
import sys
import time

from kafka.clients.admin import AdminClient
from kafka.clients.admin.controller_admin import ControllerAdmin
from kafka.clients.admin.descriptions import QuorumInfo, ReplicaState
from kafka.raft.voter_set import directory_id_from_string
from kafka.server.kafka_config import KafkaConfig
from kafka.server.meta_properties import read_meta_properties
from kafka.tools.command_line_utils import load_props, pretty_table, run
from kafka.utils.time import SYSTEM

ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"  # Uuid.ZERO_UUID: a voter without a directory id (a static quorum)

_CLIENT_KEY_PREFIXES = ("security.", "ssl.", "sasl.")  # what an admin client takes from a server's properties


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-metadata-quorum",
                                description="Describe the KRaft metadata quorum.")
    connection = p.add_mutually_exclusive_group(required=True)
    connection.add_argument("--bootstrap-server", help="a broker to connect to")
    connection.add_argument("--bootstrap-controller", help="a controller to connect to (host:port,...)")
    p.add_argument("--command-config", help="client properties; for add-controller, the new controller's own")
    sub = p.add_subparsers(dest="command", required=True)
    describe = sub.add_parser("describe", help="describe the quorum")
    what = describe.add_mutually_exclusive_group(required=True)
    what.add_argument("--status", action="store_true", help="the leader, epoch, high watermark and members")
    what.add_argument("--replication", action="store_true", help="each member's log end offset and lag")
    describe.add_argument("--human-readable", action="store_true", help="timestamps as 'N ms ago'")
    add = sub.add_parser("add-controller", help="Add a controller to the KRaft controller cluster")
    add.add_argument("--dry-run", action="store_true", help="print what would be done, but do not do it")
    remove = sub.add_parser("remove-controller", help="Remove a controller from the KRaft controller cluster")
    remove.add_argument("-i", "--controller-id", type=int, required=True,
                        help="The id of the controller to remove.")
    remove.add_argument("-d", "--controller-directory-id", required=True,
                        help="The directory ID of the controller to remove.")
    remove.add_argument("--dry-run", action="store_true", help="print what would be done, but do not do it")
    return p


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    props = load_props(args.command_config)
    if args.command == "add-controller":
        if not args.command_config:
            raise ValueError("You must supply the configuration file of the controller you are adding when "
                             "using add-controller.")
        props = {k: v for k, v in props.items() if k.startswith(_CLIENT_KEY_PREFIXES)}
    if args.bootstrap_controller:
        admin = ControllerAdmin(args.bootstrap_controller, props, SYSTEM)
    else:
        admin = AdminClient({**props, "bootstrap.servers": args.bootstrap_server})
    with admin:
        if args.command == "add-controller":
            print(add_controller(admin, args.command_config, args.dry_run))
        elif args.command == "remove-controller":
            print(remove_controller(admin, args.controller_id, args.controller_directory_id, args.dry_run))
        elif args.status:
            quorum = admin.describe_metadata_quorum()
            cluster_id, _, _ = admin.describe_cluster()
            print(status(cluster_id, quorum, now_ms()))
        else:
            print(replication(admin.describe_metadata_quorum(), now_ms(), args.human_readable))
    return 0


def add_controller(admin, config_file: str, dry_run: bool) -> str:
    """Kafka's handleAddController: the new controller's id, metadata directory id and controller
    listeners."""
    config = KafkaConfig.from_file(config_file, {})
    meta = read_meta_properties(config.metadata_log_dir)
    if meta is None or not meta.directory_id:
        raise ValueError(f"Unable to read meta.properties from {config.metadata_log_dir}: format it first "
                         "(kafka-storage format --no-initial-controllers)")
    names = [n.upper() for n in config.controller_listener_names]
    endpoints = [(e.listener_name, e.host or "localhost", e.port) for e in config.listeners
                 if e.listener_name in names]
    if not endpoints:
        raise ValueError(f"Cannot find information about controller listener name: {','.join(names)}")
    if not dry_run:
        admin.add_raft_voter(config.node_id, directory_id_from_string(meta.directory_id), endpoints)
    shown = ", ".join(f"{name}://{f'[{host}]' if ':' in host else host}:{port}"
                      for name, host, port in endpoints)
    return (f"{'DRY RUN of adding' if dry_run else 'Added'} controller {config.node_id} with directory id "
            f"{meta.directory_id} and endpoints: {shown}")


def remove_controller(admin, controller_id: int, directory_id: str, dry_run: bool) -> str:
    if controller_id < 0:
        raise ValueError(f"Invalid negative --controller-id: {controller_id}")
    try:
        directory = directory_id_from_string(directory_id)
    except ValueError as e:
        raise ValueError(f"Failed to parse --controller-directory-id: {e}") from None
    if not dry_run:
        admin.remove_raft_voter(controller_id, directory)
    action = "DRY RUN of removing" if dry_run else "Removed"
    return f"{action} KRaft controller {controller_id} with directory id {directory_id}"


def now_ms() -> int:
    return int(time.time() * 1000)


def status(cluster_id: str | None, quorum: QuorumInfo, now: int) -> str:
    """Kafka's layout: one 'Name: value' line per field, values aligned."""
    slowest = min(quorum.voters, key=lambda v: v.log_end_offset, default=None)
    max_lag = leader_end_offset(quorum) - slowest.log_end_offset if slowest is not None else 0
    rows = [("ClusterId", cluster_id), ("LeaderId", quorum.leader_id), ("LeaderEpoch", quorum.leader_epoch),
            ("HighWatermark", quorum.high_watermark), ("MaxFollowerLag", max(max_lag, 0)),
            ("MaxFollowerLagTimeMs", max_follower_lag_time_ms(quorum)),
            ("CurrentVoters", replica_states(quorum, quorum.voters)),
            ("CurrentObservers", replica_states(quorum, quorum.observers))]
    return "\n".join(f"{name + ':':<24}{value}" for name, value in rows)


def max_follower_lag_time_ms(quorum: QuorumInfo) -> int:
    """Kafka's: the leader's last caught-up time minus that of the voter with the smallest log end (0 when
    that is the leader, -1 when a time is unknown), but never negative. A follower that fetched after
    the leader last caught up has the later time (the split cluster printed -18): it lags by nothing."""
    leader = next((v for v in quorum.voters if v.replica_id == quorum.leader_id), None)
    slowest = min(quorum.voters, key=lambda v: v.log_end_offset, default=None)
    if leader is None or slowest is None:
        return -1  # the leader left the voters (its removal not committed yet)
    if slowest is leader:
        return 0
    if leader.last_caught_up_timestamp < 0 or slowest.last_caught_up_timestamp < 0:
        return -1
    return max(0, leader.last_caught_up_timestamp - slowest.last_caught_up_timestamp)


def leader_end_offset(quorum: QuorumInfo) -> int:
    leader = next((v for v in quorum.voters if v.replica_id == quorum.leader_id), None)
    return leader.log_end_offset if leader is not None else quorum.high_watermark


def replica_states(quorum: QuorumInfo, replicas: list[ReplicaState]) -> str:
    """Kafka 4's form: [{"id": 1, "directoryId": "...", "endpoints": ["CONTROLLER://host:port"]}, ...]."""
    def one(r: ReplicaState) -> str:
        directory = ""
        if r.replica_directory_id not in (None, ZERO_UUID):
            directory = f', "directoryId": "{r.replica_directory_id}"'
        endpoints = quorum.nodes.get(r.replica_id) or []
        quoted = ", ".join(f'"{e}"' for e in endpoints)
        shown = f', "endpoints": [{quoted}]' if endpoints else ""
        return f'{{"id": {r.replica_id}{directory}{shown}}}'
    return "[" + ", ".join(one(r) for r in replicas) + "]"


def replication(quorum: QuorumInfo, now: int, human_readable: bool) -> str:
    def when(ts: int) -> str:
        if not human_readable:
            return str(ts)
        return "-1" if ts < 0 else f"{now - ts} ms ago"

    header = ["NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp", "LastCaughtUpTimestamp",
              "Status"]
    rows = []
    for state, members in (("Leader", [v for v in quorum.voters if v.replica_id == quorum.leader_id]),
                           ("Follower", [v for v in quorum.voters if v.replica_id != quorum.leader_id]),
                           ("Observer", quorum.observers)):
        for m in sorted(members, key=lambda m: m.replica_id):
            rows.append([str(m.replica_id), m.replica_directory_id or ZERO_UUID, str(m.log_end_offset),
                         str(max(0, leader_end_offset(quorum) - m.log_end_offset)),
                         when(m.last_fetch_timestamp), when(m.last_caught_up_timestamp), state])
    return pretty_table(header, rows)


if __name__ == "__main__":
    sys.exit(main())
