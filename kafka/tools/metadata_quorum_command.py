"""kafka-metadata-quorum: the state of the KRaft metadata quorum (Kafka's org.apache.kafka.tools.MetadataQuorumCommand,
``bin/kafka-metadata-quorum.sh``, KIP-595 and KIP-836).

    kafka-metadata-quorum --bootstrap-server 127.0.0.1:9092 describe --status
    kafka-metadata-quorum --bootstrap-server 127.0.0.1:9092 describe --replication

Seed 004: the controllers replicate the metadata log with Raft. --status shows who leads it and at
which epoch, how far it is committed (the high watermark) and how far the slowest follower lags;
--replication shows each voter and observer (broker) with its log end offset and when it last
fetched. The request (DescribeQuorum) goes to any broker, which forwards it to the active controller.
"""

from __future__ import annotations

import argparse
import sys
import time

from kafka.clients.admin import AdminClient
from kafka.clients.admin.descriptions import QuorumInfo
from kafka.tools.command_line_utils import load_props, run


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-metadata-quorum", description="Describe the KRaft metadata quorum.")
    p.add_argument("--bootstrap-server", required=True)
    p.add_argument("--command-config")
    sub = p.add_subparsers(dest="command", required=True)
    describe = sub.add_parser("describe", help="describe the quorum")
    what = describe.add_mutually_exclusive_group(required=True)
    what.add_argument("--status", action="store_true", help="the leader, epoch, high watermark and members")
    what.add_argument("--replication", action="store_true", help="each member's log end offset and lag")
    describe.add_argument("--human-readable", action="store_true", help="timestamps as 'N ms ago'")
    return p


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    with AdminClient({**load_props(args.command_config), "bootstrap.servers": args.bootstrap_server}) as admin:
        quorum = admin.describe_metadata_quorum()
        if args.status:
            cluster_id, _, _ = admin.describe_cluster()
            print(status(cluster_id, quorum, now_ms()))
        else:
            print(replication(quorum, now_ms(), args.human_readable))
    return 0


def now_ms() -> int:
    return int(time.time() * 1000)


def status(cluster_id: str | None, quorum: QuorumInfo, now: int) -> str:
    """Kafka's layout: one 'Name: value' line per field, values aligned."""
    followers = [v for v in quorum.voters if v.replica_id != quorum.leader_id]
    leader = next((v for v in quorum.voters if v.replica_id == quorum.leader_id), None)
    max_lag = max((quorum.high_watermark - f.log_end_offset for f in followers), default=0)
    lag_times = [now - f.last_caught_up_timestamp for f in followers if f.last_caught_up_timestamp >= 0]
    max_lag_time = max(lag_times, default=0) if leader is not None else -1
    rows = [("ClusterId", cluster_id), ("LeaderId", quorum.leader_id), ("LeaderEpoch", quorum.leader_epoch),
            ("HighWatermark", quorum.high_watermark), ("MaxFollowerLag", max(max_lag, 0)),
            ("MaxFollowerLagTimeMs", max_lag_time),
            ("CurrentVoters", "[" + ",".join(str(v.replica_id) for v in quorum.voters) + "]"),
            ("CurrentObservers", "[" + ",".join(str(o.replica_id) for o in quorum.observers) + "]")]
    return "\n".join(f"{name + ':':<24}{value}" for name, value in rows)


def replication(quorum: QuorumInfo, now: int, human_readable: bool) -> str:
    def when(ts: int) -> str:
        if not human_readable:
            return str(ts)
        return "unknown" if ts < 0 else f"{now - ts} ms ago"

    header = ["NodeId", "LogEndOffset", "Lag", "LastFetchTimestamp", "LastCaughtUpTimestamp", "Status"]
    rows = []
    for state, members in (("Leader", [v for v in quorum.voters if v.replica_id == quorum.leader_id]),
                           ("Follower", [v for v in quorum.voters if v.replica_id != quorum.leader_id]),
                           ("Observer", quorum.observers)):
        for m in sorted(members, key=lambda m: m.replica_id):
            rows.append([str(m.replica_id), str(m.log_end_offset), str(max(quorum.high_watermark - m.log_end_offset, 0)),
                         when(m.last_fetch_timestamp), when(m.last_caught_up_timestamp), state])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
                     for row in [header, *rows])


if __name__ == "__main__":
    sys.exit(main())
