#!/usr/bin/env python3
"""One produce request's work on the I/O thread, with warm caches and with cold ones.

The latency run (1,000 msg/s, linger.ms=5) sends a produce request about every 5 ms. Between two of
them the clients, the other broker threads and the kernel run on the same two cores, and the CPU
caches no longer hold what the last request touched: the interpreter's code objects, the dicts,
the log's objects. This script runs the real KafkaApis.handle (decode, append, HW, DelayedProduce,
encode, metrics: the I/O thread's part of seed 002's journey) on one thread of an in-process
broker, first back to back, then after streaming a buffer larger than the caches through the CPU
before each request:

    python bench/produce_path.py [--requests 3000] [--records 5] [--size 100]

Only the handle call is timed (time.thread_time_ns), not the streaming. docs/performance.md
explains the figures beside those of bench/handoff_floor.py.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time

from confluent_kafka.admin import AdminClient, NewTopic

from kafka.network.request_channel import Request, deferred_wakeups
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.header import encode_request, parse_request_header
from kafka.protocol.record_batch import build_batch
from kafka.server.kafka_config import KafkaConfig
from kafka.server.kafka_server import KafkaServer
from kafka.utils.logging import configure_logging
from kafka.utils.topic_partition import TopicPartition

PRODUCE = APIS[ApiKey.PRODUCE]
VERSION = 9  # flexible, as librdkafka sends it
CACHE_FLUSH_BYTES = 64 << 20  # larger than any last-level cache this runs on


def produce_frame(topic: str, correlation_id: int, records: int, size: int) -> memoryview:
    """A whole Produce request frame (header v2 and body), acks=all, one batch for partition 0."""
    batch = build_batch([(None, b"x" * size)] * records, timestamp=int(time.time() * 1000))
    body = dict(transactional_id=None, acks=-1, timeout_ms=30000,
                topic_data=[dict(name=topic, partition_data=[dict(index=0, records=batch)])])
    frame = encode_request(PRODUCE, VERSION, correlation_id, "produce-path", body)
    return memoryview(frame)[4:]  # the network thread hands KafkaApis the frame without its size prefix


def create_topic(bootstrap: str, topic: str) -> None:
    """One partition, through a real admin client, gone before the broker stops (no reconnect noise)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(15)


def handle_all(apis, frames: list[memoryview], cold: bool) -> float:
    """µs of this thread's CPU a request, inside KafkaApis.handle only."""
    scratch = bytearray(CACHE_FLUSH_BYTES) if cold else None
    spent = 0
    for frame in frames:
        if scratch is not None:
            scratch[:] = scratch  # a memmove through every cache level
        header = parse_request_header(frame)
        # No connection has this id: the network thread drops the response, as for a client gone.
        request = Request(0, "produce-path", "PLAINTEXT", "127.0.0.1", header, frame)
        with deferred_wakeups():  # as KafkaRequestHandler.run does; the wake-up is not timed
            started = time.thread_time_ns()
            apis.handle(request)
            spent += time.thread_time_ns() - started
    return spent / len(frames) / 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--records", type=int, default=5, help="records a batch (the latency run: about 5)")
    ap.add_argument("--size", type=int, default=100, help="bytes a record's value")
    a = ap.parse_args()
    configure_logging("console", level=logging.WARNING)
    with tempfile.TemporaryDirectory() as data:
        server = KafkaServer(KafkaConfig({"node.id": "1", "listeners": "PLAINTEXT://127.0.0.1:0",
                                          "log.dirs": data,
                                          "metrics.listener": "http://127.0.0.1:0"}))
        server.startup()
        try:
            topic = "produce-path"
            create_topic(f"127.0.0.1:{server.bound_port()}", topic)
            while server.replica_manager.get_partition(TopicPartition(topic, 0)) is None:
                time.sleep(0.05)
            frames = [produce_frame(topic, i, a.records, a.size) for i in range(3 * a.requests)]
            handle_all(server.apis, frames[: a.requests], cold=False)  # warm-up
            hot = handle_all(server.apis, frames[a.requests : 2 * a.requests], cold=False)
            cold = handle_all(server.apis, frames[2 * a.requests :], cold=True)
        finally:
            server.shutdown()
    print(f"PRODUCE_PATH {a.records} x {a.size} B a request: {hot:.0f} µs back to back, "
          f"{cold:.0f} µs with cold caches ({cold / hot:.1f}x)")


if __name__ == "__main__":
    main()
