"""The I/O threads block on the request queue while idle, still report that time as idle, and stop
when the pool puts its shutdown markers."""

from kafka.network.request_channel import RequestChannel
from kafka.server.kafka_request_handler import KafkaRequestHandlerPool
from tests.helpers import wait_until


class NoRequestsExpected:
    def handle(self, request):
        raise AssertionError(f"unexpected request {request!r}")


def test_an_idle_handler_blocks_counts_its_wait_as_idle_and_stops_on_the_marker():
    pool = KafkaRequestHandlerPool(RequestChannel(queue_size=10), NoRequestsExpected(), num_threads=2)
    pool.startup()
    try:
        # No request ever arrives, yet the wait under way shows in the idle total (the metric's input).
        wait_until(lambda: all(h.idle_time_ns > 50_000_000 for h in pool.handlers),
                   message="both handlers reporting 50 ms of idle time while blocked")
    finally:
        pool.shutdown()
    assert not any(h.is_alive() for h in pool.handlers)
