"""kafka-replica-verification: do all replicas of each partition hold the same records? (Kafka's
kafka.tools.ReplicaVerificationTool, ``bin/kafka-replica-verification.sh``.)

    kafka-replica-verification --bootstrap-server 127.0.0.1:9092 [--topics-include 'orders.*']
                               [--report-interval-ms 30000] [--reports N]

For every partition of the matching topics it fetches from *each* replica, not only the leader, with
the debugging replica id (-2) that lets a follower answer below its high watermark, and compares the
batches every replica has (below the smallest of their high watermarks) by offset and CRC. Each
report prints, as Kafka's tool does:

    2026-11-24 16:10:02,311: verification process is started.
    2026-11-24 16:10:02,517: max lag is 0 for partition orders-0 at offset 1200 among 3 partitions

The lag is how far the most-behind replica's high watermark trails the most-advanced one's. A
mismatch prints "Partition orders-0 has unmatched checksum at offset 1000; replica 1's checksum
...; replica 2's checksum ..." and exits 1. Kafka's tool runs until stopped; --reports N (ours)
stops after N reports.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from datetime import datetime

from kafka.clients.admin import AdminClient
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.messages.fetch import DEBUGGING_REPLICA_ID
from kafka.protocol.record_batch import iter_batches
from kafka.tools.command_line_utils import load_props, run
from kafka.utils.topic_partition import TopicPartition

FETCH_VERSION = 12  # topic names, not ids


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kafka-replica-verification",
        description="Check that the replicas of each partition hold the same records.")
    p.add_argument("--bootstrap-server", required=True)
    p.add_argument("--topics-include", default=".*", help="a regular expression of the topics to verify")
    p.add_argument("--fetch-size", type=int, default=1024 * 1024,
                   help="bytes fetched per partition per request")
    p.add_argument("--max-wait-ms", type=int, default=1000)
    p.add_argument("--report-interval-ms", type=int, default=30000)
    p.add_argument("--reports", type=int, default=0,
                   help="stop after this many reports (0: run until stopped)")
    p.add_argument("--command-config")
    return p


def now() -> str:
    return datetime.now().strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    pattern = re.compile(args.topics_include)
    with AdminClient({"bootstrap.servers": args.bootstrap_server,
                      **load_props(args.command_config)}) as admin:
        print(f"{now()}: verification process is started.", flush=True)
        reports = 0
        while True:
            topics = sorted(t for t in admin.list_topics(include_internal=False) if pattern.fullmatch(t))
            replicas = {TopicPartition(name, p.partition): list(p.replicas)
                        for name, desc in sorted(admin.describe_topics(topics).items())
                        for p in desc.partitions}
            verdict = verify(admin, replicas, args.fetch_size, args.max_wait_ms)
            if verdict is not None:
                print(verdict, flush=True)
                return 1
            reports += 1
            if args.reports and reports >= args.reports:
                return 0
            time.sleep(args.report_interval_ms / 1000)


def verify(admin: AdminClient, replicas: dict[TopicPartition, list[int]], fetch_size: int,
           max_wait_ms: int) -> str | None:
    """One pass: compare every partition's replicas; print the max-lag line, or return the mismatch."""
    worst = (-1, None, 0)  # (lag, partition, offset)
    for tp, brokers in replicas.items():
        copies = {broker: read_replica(admin, broker, tp, fetch_size, max_wait_ms) for broker in brokers}
        available = {b: c for b, c in copies.items() if c is not None}
        if not available:
            continue
        common = min(hw for hw, _ in available.values())
        mismatch = first_mismatch(tp,
                                  {b: [x for x in batches if x[0] < common]
                                   for b, (_, batches) in available.items()})
        if mismatch is not None:
            return mismatch
        lag = max(hw for hw, _ in available.values()) - common
        if lag > worst[0]:
            worst = (lag, tp, common)
    lag, tp, offset = worst
    if tp is not None:
        print(f"{now()}: max lag is {lag} for partition {tp} at offset {offset} among {len(replicas)} "
              "partitions",
              flush=True)
    return None


def read_replica(admin: AdminClient, broker: int, tp: TopicPartition, fetch_size: int, max_wait_ms: int):
    """(high watermark, [(base offset, last offset, crc)]) of one replica, below its HW; None if it
    cannot be read (the broker is down)."""
    batches: list[tuple[int, int, int]] = []
    offset = 0
    high_watermark = None
    while high_watermark is None or offset < high_watermark:
        body = dict(replica_id=DEBUGGING_REPLICA_ID, max_wait_ms=0, min_bytes=0, max_bytes=fetch_size,
                    isolation_level=0, session_id=0, session_epoch=-1, rack_id="", forgotten_topics_data=[],
                    topics=[dict(topic=tp.topic, partitions=[dict(
                        partition=tp.partition, current_leader_epoch=-1, fetch_offset=offset,
                        last_fetched_epoch=-1,
                        log_start_offset=-1, partition_max_bytes=fetch_size)])])
        try:
            response = admin.client.send_and_wait(broker, ApiKey.FETCH, body, max(max_wait_ms, 5000),
                                                  FETCH_VERSION)
        except Exception:
            return None
        data = response.body.responses[0].partitions[0]
        if data.error_code == Errors.OFFSET_OUT_OF_RANGE and offset == 0:
            offset = max(data.log_start_offset, 0)  # retention moved the log start: begin there
            continue
        if data.error_code != Errors.NONE:
            return None
        high_watermark = data.high_watermark if high_watermark is None else high_watermark
        read = [(b.base_offset, b.last_offset, b.crc) for b in iter_batches(bytes(data.records or b""))]
        if not read:
            break
        batches += read
        offset = read[-1][1] + 1
    return high_watermark or 0, batches


def first_mismatch(tp: TopicPartition, copies: dict[int, list[tuple[int, int, int]]]) -> str | None:
    brokers = sorted(copies)
    reference = brokers[0]
    for other in brokers[1:]:
        for mine, theirs in zip(copies[reference], copies[other], strict=False):
            if mine != theirs:
                return (f"Partition {tp} has unmatched checksum at offset {mine[0]}; replica {reference}'s "
                        f"checksum {mine[2]}; replica {other}'s checksum {theirs[2]}")
        if len(copies[reference]) != len(copies[other]):
            shorter = reference if len(copies[reference]) < len(copies[other]) else other
            return f"Partition {tp}: replica {shorter} is missing batches below the common high watermark"
    return None


if __name__ == "__main__":
    sys.exit(main())
