#!/usr/bin/env python3
"""Resident memory of a broker answering ListOffsets by timestamp on a decompression bomb.

A zstd batch of about 30 KB holding a gigabyte of zeros (one record) and one small record after
it reaches the log as an older broker would have written it (appended as a follower appends:
nothing checked). Then 4 clients at once ask, over and over, for the offset of the small record's
timestamp, which makes the broker read past the gigabyte, and for MAX_TIMESTAMP (-3). The broker
runs in this process; its RSS is sampled idle and while the lookups run:

    python bench/bomb_lookup_rss.py [--gigabytes 1] [--rounds 3] [--clients 4]

Prints BOMB_LOOKUP_RSS with idle and peak RSS; issue 27 wants the difference under 100 MB.
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import threading
import time

import zstandard
from confluent_kafka.admin import AdminClient, NewTopic

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.compression import CompressionType
from kafka.protocol.record_batch import (
    DefaultRecord,
    build_batch,
    encode_records,
    seal_batch,
    set_base_offset,
)
from kafka.protocol.types import VarInt, VarLong
from kafka.server.kafka_config import KafkaConfig
from kafka.server.kafka_server import KafkaServer
from kafka.utils.logging import configure_logging
from kafka.utils.topic_partition import TopicPartition
from tests.wire import WireClient

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 1e6


def bomb(value_bytes: int, timestamp: int) -> bytes:
    """Two records, zstd-compressed as a stream: `value_bytes` zeros, then one small record."""
    body = bytearray(b"\x00")  # attributes
    VarLong.write(body, 0)
    VarInt.write(body, 0)  # offset delta 0
    VarInt.write(body, -1)  # null key
    VarInt.write(body, value_bytes)
    head = bytearray()
    VarInt.write(head, len(body) + value_bytes + 1)
    compressor = zstandard.ZstdCompressor().compressobj()
    out = [compressor.compress(bytes(head + body))]
    zeros = bytes(1 << 20)
    out += [compressor.compress(zeros) for _ in range(value_bytes >> 20)]
    out.append(compressor.compress(b"\x00"))  # no headers
    out.append(compressor.compress(encode_records([DefaultRecord(1, timestamp + 1, None, b"small")], 0,
                                                  timestamp)))
    out.append(compressor.flush())
    return seal_batch(base_offset=0, attributes=int(CompressionType.ZSTD), last_offset_delta=1,
                      base_timestamp=timestamp,
                      max_timestamp=timestamp + 1, producer_id=-1, producer_epoch=-1, base_sequence=-1,
                      records_count=2, payload=b"".join(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gigabytes", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3, help="lookups each client makes")
    ap.add_argument("--clients", type=int, default=4)
    a = ap.parse_args()
    configure_logging("console", level=logging.ERROR)
    with tempfile.TemporaryDirectory() as data:
        server = KafkaServer(KafkaConfig({"node.id": "1", "listeners": "PLAINTEXT://127.0.0.1:0",
                                          "log.dirs": data,
                                          "metrics.listener": ""}))
        server.startup()
        try:
            port = server.bound_port()
            topic = "bomb"
            admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{port}"})
            admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(15)
            del admin  # gone before the broker stops: no reconnect noise
            tp = TopicPartition(topic, 0)
            while server.replica_manager.get_partition(tp) is None:
                time.sleep(0.05)
            log = server.replica_manager.get_partition(tp).log
            now = int(time.time() * 1000)
            poisoned = bytearray(bomb(a.gigabytes << 30, now))
            log.append_as_follower(poisoned)
            after = bytearray(build_batch([(None, b"after")], timestamp=now + 2))
            set_base_offset(after, 0, 2)
            log.append_as_follower(after)
            log.update_high_watermark(log.log_end_offset)
            idle = rss_mb()
            peak = [idle]
            done = threading.Event()

            def sample() -> None:
                while not done.wait(0.05):
                    peak[0] = max(peak[0], rss_mb())

            def lookups() -> None:
                client = WireClient(port, timeout=120)
                for _ in range(a.rounds):
                    for timestamp in (now + 1, -3):
                        client.request(ApiKey.LIST_OFFSETS, 7,
                                       {"replica_id": -1, "isolation_level": 0, "topics": [
                            {"name": topic, "partitions": [{"partition_index": 0, "timestamp": timestamp}]}]})
                client.close()

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            started = time.monotonic()
            clients = [threading.Thread(target=lookups) for _ in range(a.clients)]
            for c in clients:
                c.start()
            for c in clients:
                c.join()
            elapsed = time.monotonic() - started
            done.set()
            sampler.join()
        finally:
            server.shutdown()
    print(f"BOMB_LOOKUP_RSS {len(poisoned) // 1024} KB batch, {a.gigabytes} GB inflated, {a.clients} clients "
          f"x {a.rounds} rounds in {elapsed:.1f} s: idle {idle:.0f} MB, peak {peak[0]:.0f} MB "
          f"(+{peak[0] - idle:.0f} MB)")


if __name__ == "__main__":
    main()
