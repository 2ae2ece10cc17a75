"""Lab 02, a produce request's journey (docs/labs/02-produce-journey.md): `AvgIdlePercent.value` in
kafka/metrics/idle_percent.py, the gauge behind NetworkProcessorAvgIdlePercent and
RequestHandlerAvgIdlePercent, then a real broker's /metrics after produce requests.

Seed 002: the network threads "only do work that's lightweight", the I/O threads are a fixed pool
that takes requests from the shared request queue. Their idle share says which pool a slow request
waited for. The clock is a fake one, moved by the check: nothing sleeps.
"""

from __future__ import annotations

import pytest
from confluent_kafka import Producer

from kafka.metrics.idle_percent import AvgIdlePercent
from tests.helpers import unique_topic
from tests.metrics.scrape import scrape

SECOND = 1_000_000_000


class Pool:
    """A fake clock and a fake pool of threads, each with its running total of nanoseconds idle."""

    def __init__(self, threads: int) -> None:
        self.now = 0
        self.idle = [0] * threads
        self.gauge = AvgIdlePercent(lambda: list(self.idle), clock_ns=lambda: self.now)

    def run(self, seconds: int, idle_share: float, read_every_second: bool = True) -> float:
        """Let `seconds` pass with every thread idle `idle_share` of the time;
        read the gauge as a scraper would."""
        for _ in range(seconds):
            self.now += SECOND
            self.idle = [t + int(SECOND * idle_share) for t in self.idle]
            if read_every_second:
                self.gauge.value()
        return self.gauge.value()


def produce(broker, topic: str, count: int) -> int:
    """Produce with librdkafka, acks=all; the records not acknowledged. The producer is gone on return,
    so it never outlives the broker."""
    producer = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all", "linger.ms": 5})
    for i in range(count):
        producer.produce(topic, key=b"k", value=b"v%d" % i)
    return producer.flush(15)


def test_a_pool_that_only_waited_is_fully_idle():
    """a pool whose threads waited all the time is 1.0 idle"""
    assert Pool(2).run(10, idle_share=1.0) == pytest.approx(1.0)


def test_a_pool_that_never_waited_is_not_idle_at_all():
    """a pool whose threads never waited (every one always handling a request) is 0.0 idle"""
    assert Pool(2).run(10, idle_share=0.0) == pytest.approx(0.0)


def test_the_idle_share_is_per_thread_not_summed():
    """two threads each waiting half the time make the pool 0.5 idle, not 1.0: divide by the threads too"""
    value = Pool(2).run(10, idle_share=0.5)
    assert value == pytest.approx(0.5, abs=0.01), f"got {value}; idle ns / (elapsed ns x number of threads)"


def test_no_time_elapsed_means_idle_and_no_division_by_zero():
    """read before any time has passed, the pool counts as idle (1.0) instead of dividing by zero"""
    assert Pool(3).gauge.value() == 1.0


def test_only_the_last_minute_counts():
    """only the last minute counts: a busy minute long ago no longer pulls the value down"""
    pool = Pool(4)
    pool.run(60, idle_share=0.0)  # a minute of load
    half = pool.run(30, idle_share=1.0)  # then quiet: the window holds 30 s busy, 30 s idle
    assert half == pytest.approx(0.5, abs=0.05), f"after 30 s busy + 30 s idle in the window: got {half}"
    later = pool.run(40, idle_share=1.0)
    assert later == pytest.approx(1.0, abs=0.02), f"the busy minute ended 70 s ago: got {later}"


def test_the_value_stays_between_0_and_1():
    """the value stays within [0, 1] even when the threads' totals run ahead of the clock"""
    pool = Pool(1)
    pool.now += SECOND
    pool.idle = [3 * SECOND]
    assert pool.gauge.value() == 1.0


def test_a_broker_times_produce_requests_and_exports_both_pools_idle_share(broker):
    """a real broker, after produce requests, counts and times them
    and exports both pools' idle share on /metrics"""
    topic = unique_topic("lab02")
    assert produce(broker, topic, 1000) == 0, "the broker did not acknowledge every record"
    metrics = scrape(broker)
    assert metrics.value("kafka_server_brokertopicmetrics_messagesin_total", topic=topic) == 1000
    assert metrics.value("kafka_network_requestmetrics_totaltimems_count", request="Produce") >= 1
    for gauge in ("kafka_network_socketserver_networkprocessoravgidlepercent",
                  "kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent"):
        # A gauge that raises is left out of the page (and logged), so absent means not answered.
        assert gauge in metrics.names(), (
            f"{gauge} is not on /metrics: its value() raised (see the broker's log)")
        assert 0.0 <= metrics.value(gauge) <= 1.0, f"{gauge} = {metrics.value(gauge)}"
