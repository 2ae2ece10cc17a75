#!/usr/bin/env python3
"""Does a producer quota hold a noisy client, and spare the others? (issue 27's done-when figure)

A "noisy" confluent-kafka producer tries --tries-factor times its producer_byte_rate quota (set with
AlterClientQuotas, as kafka-configs does) while an "other" producer sends small acks=all records
at a steady pace and times each one. Three phases, each --seconds long:

    alone      the other client by itself
    quota      beside the noisy producer held to its quota
    no quota   beside the same noisy producer with its quota removed (the "before" figure)

The held rate is the slope of the noisy producer's acknowledged bytes over --windows whole quota
windows (11 s each), once its first has passed. Kafka's windowed rate lets a client through in
bursts: when a second's worth of old records drops out of the 11 s the rate is measured over, the
client may send that much again at once, then waits. Over whole windows the bursts average out
to the quota; over a shorter or misaligned span one burst more or less moves the figure by a tenth.

    python bench/quota_hold.py --bootstrap 127.0.0.1:9092 [--quota 1048576] [--seconds 20] [--windows 4]
    python bench/quota_hold.py                # starts its own broker in this process

prints

    QUOTA_HOLD quota=1048576 B/s tried=10485760 B/s held=... B/s (...% of quota), throttle events=...
    QUOTA_LATENCY other client p50/p99 ms: alone .../..., beside the held producer .../..., beside it
    unthrottled .../...
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient as ConfluentAdmin
from confluent_kafka.admin import NewTopic

from kafka.clients.admin import AdminClient

NOISY, OTHER = "noisy", "other"


def set_quota(bootstrap: str, value: float | None) -> None:
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        [error] = admin.alter_client_quotas([({"client-id": NOISY}, {"producer_byte_rate": value})])
        if error is not None:
            raise error
        want = {} if value is None else {"producer_byte_rate": float(value)}
        deadline = time.monotonic() + 15
        while next(iter(admin.describe_client_quotas([("client-id", 0, NOISY)], strict=True).values()),
                   {}) != want:
            if time.monotonic() > deadline:
                raise RuntimeError("the quota never showed in DescribeClientQuotas")
            time.sleep(0.05)
    time.sleep(0.5)  # the broker's quota managers follow its metadata image a moment later


class Noisy(threading.Thread):
    """Sends --tries-factor x quota bytes a second, paced; counts what was acknowledged, and when."""

    def __init__(self, bootstrap: str, topic: str, rate: float, message_size: int = 10_000) -> None:
        super().__init__(daemon=True)
        self.topic, self.rate, self.value = topic, rate, b"n" * message_size
        self.acked: list[tuple[float, int]] = []  # (monotonic time, bytes)
        self.throttle_events = 0
        self.stop = threading.Event()
        self.producer = Producer({"bootstrap.servers": bootstrap, "client.id": NOISY, "linger.ms": 5,
                                  "queue.buffering.max.kbytes": 16384,
                                  "throttle_cb": lambda event: self._throttled(event)})

    def _throttled(self, event) -> None:
        if event.throttle_time > 0:
            self.throttle_events += 1

    def _delivered(self, err, msg) -> None:
        if err is None:
            self.acked.append((time.monotonic(), len(msg.value())))

    def run(self) -> None:
        started, tried = time.monotonic(), 0
        while not self.stop.is_set():
            if tried < (time.monotonic() - started) * self.rate:
                # it tries, whether or not its queue has room (throttled: it has not)
                tried += len(self.value)
                try:
                    self.producer.produce(self.topic, self.value, on_delivery=self._delivered)
                except BufferError:
                    pass
                self.producer.poll(0)
            else:
                self.producer.poll(0.001)
        self.producer.purge()
        self.producer.flush(10)

    def rate_between(self, start: float, end: float) -> float:
        """The slope of acknowledged bytes against time (least squares), so that where a burst falls
        against the ends of the span does not decide the figure."""
        points, total = [], 0
        for t, n in self.acked:
            if start <= t < end:
                total += n
                points.append((t, total))
        if len(points) < 2:
            return total / (end - start)
        mean_t = sum(t for t, _ in points) / len(points)
        mean_b = sum(b for _, b in points) / len(points)
        variance = sum((t - mean_t) ** 2 for t, _ in points)
        return sum((t - mean_t) * (b - mean_b) for t, b in points) / variance


def other_latencies(bootstrap: str, topic: str, seconds: float, per_second: int = 100) -> list[float]:
    """Send per_second 100-byte acks=all records, one at a time in pace; each one's ms to its ack."""
    latencies: list[float] = []
    producer = Producer({"bootstrap.servers": bootstrap, "client.id": OTHER, "acks": "all", "linger.ms": 0})
    started = time.monotonic()
    for i in range(int(seconds * per_second)):
        while time.monotonic() < started + i / per_second:
            producer.poll(0.001)
        sent_at = time.monotonic()
        producer.produce(topic, b"o" * 100,
                         on_delivery=lambda err, msg, t=sent_at: err is None and latencies.append(
                             (time.monotonic() - t) * 1000))
        producer.poll(0)
    producer.flush(30)
    return latencies


def percentiles(values: list[float]) -> str:
    if len(values) < 2:
        return "n/a"
    q = statistics.quantiles(values, n=100)
    return f"{q[49]:.1f}/{q[98]:.1f}"


def run(bootstrap: str, quota: int, factor: float, seconds: float, windows: int) -> None:
    topics = {name: f"quota-{name}-{uuid.uuid4().hex[:6]}" for name in (NOISY, OTHER)}
    admin = ConfluentAdmin({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(t, num_partitions=1, replication_factor=1)
                                  for t in topics.values()]).values():
        f.result(15)
    window_s = 11  # quota.window.num x quota.window.size.seconds, Kafka's defaults
    alone = other_latencies(bootstrap, topics[OTHER], seconds)

    set_quota(bootstrap, quota)
    noisy = Noisy(bootstrap, topics[NOISY], quota * factor)
    noisy.start()
    time.sleep(window_s)  # its first window: a burst, then throttled
    measure_from = time.monotonic()
    held_latencies = other_latencies(bootstrap, topics[OTHER], windows * window_s)
    held = noisy.rate_between(measure_from, time.monotonic())
    events = noisy.throttle_events

    set_quota(bootstrap, None)  # the same client, its quota removed
    measure_from = time.monotonic()
    unthrottled_latencies = other_latencies(bootstrap, topics[OTHER], seconds)
    unthrottled = noisy.rate_between(measure_from, time.monotonic())
    noisy.stop.set()
    noisy.join(30)
    for f in admin.delete_topics(list(topics.values())).values():
        f.result(15)

    print(f"QUOTA_HOLD quota={quota} B/s tried={quota * factor:.0f} B/s held={held:.0f} B/s "
          f"({held / quota:.0%} of quota) over {windows} quota windows, throttle events={events}; "
          f"without the quota it got {unthrottled:.0f} B/s")
    print(f"QUOTA_LATENCY other client p50/p99 ms: alone {percentiles(alone)}, beside the held producer "
          f"{percentiles(held_latencies)}, beside it unthrottled {percentiles(unthrottled_latencies)}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", help="a running broker; without it one is started in this process")
    ap.add_argument("--quota", type=int, default=1_048_576, help="producer_byte_rate of the noisy client")
    ap.add_argument("--tries-factor", type=float, default=10.0, help="how many times its quota it tries")
    ap.add_argument("--seconds", type=float, default=20.0, help="length of the phases without a quota")
    ap.add_argument("--windows", type=int, default=4,
                    help="quota windows (11 s) the held rate is measured over")
    a = ap.parse_args()
    if a.bootstrap:
        run(a.bootstrap, a.quota, a.tries_factor, a.seconds, a.windows)
        return
    from kafka.server.kafka_config import KafkaConfig
    from kafka.server.kafka_server import KafkaServer
    from kafka.utils.logging import configure_logging

    configure_logging("console", 30)
    with tempfile.TemporaryDirectory() as data:
        server = KafkaServer(KafkaConfig({"listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": str(Path(data)),
                                          "metrics.listener": ""}))
        server.startup()
        try:
            run(f"127.0.0.1:{server.bound_port()}", a.quota, a.tries_factor, a.seconds, a.windows)
        finally:
            server.shutdown()


if __name__ == "__main__":
    main()
