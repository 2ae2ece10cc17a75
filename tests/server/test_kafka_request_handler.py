"""The I/O threads block on the request queue while idle, still report that time as idle, and stop
when the pool puts its shutdown markers; the responses an I/O thread queues wake their network
thread once, when it is done with the request; a handler failure is answered every time and logged
once an interval."""

from kafka.network.request_channel import Request, RequestChannel, Response, deferred_wakeups
from kafka.protocol.header import RequestHeader
from kafka.server.kafka_request_handler import KafkaRequestHandlerPool
from kafka.utils.repeated_error_log import RepeatedErrorLog
from kafka.utils.time import MockTime
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


class RecordingSink:
    """A network thread's side of the channel, noting each response and each wake-up in order."""

    id = 0

    def __init__(self) -> None:
        self.events: list[str] = []

    def enqueue_response(self, response, wake: bool = True) -> None:
        self.events.append("response")
        if wake:
            self.wakeup()

    def wakeup(self) -> None:
        self.events.append("wakeup")


class AnswersTwice:
    """Like a produce that completes a waiting fetch: two responses for one network thread."""

    def __init__(self, channel: RequestChannel) -> None:
        self.channel = channel

    def handle(self, request) -> None:
        self.channel.send_response(Response(request, b"fetch response"))
        self.channel.send_response(Response(request, b"produce response"))


def a_request() -> Request:
    return Request(0, "conn-1", "PLAINTEXT", "127.0.0.1", RequestHeader(0, 9, 1, "test", 10), memoryview(b""))


def test_the_network_thread_is_woken_once_when_the_io_thread_is_done_with_the_request():
    channel, sink = RequestChannel(queue_size=10), RecordingSink()
    channel.add_processor(sink)
    apis = AnswersTwice(channel)
    pool = KafkaRequestHandlerPool(channel, apis, num_threads=1)
    pool.startup()
    try:
        channel.send_request(a_request())
        wait_until(lambda: sink.events == ["response", "response", "wakeup"],
                   message=f"two responses, then one wake-up (saw {sink.events})")
    finally:
        pool.shutdown()


def test_outside_an_io_thread_the_wake_up_is_not_held_back():
    """A purgatory's reaper, the controller channel answering a forwarded request: no request of
    theirs will end to wake the network thread later, so they wake it at once."""
    channel, sink = RequestChannel(queue_size=10), RecordingSink()
    channel.add_processor(sink)
    channel.send_response(Response(a_request(), b"from a purgatory's reaper"))
    assert sink.events == ["response", "wakeup"]
    sink.events.clear()
    with deferred_wakeups():
        channel.send_response(Response(a_request(), b"answered"))
        assert sink.events == ["response"]
    assert sink.events == ["response", "wakeup"]


class FailsLikeAHandout:
    """Every request reaches a TODO, as every fetch at a log's end does in a lab handout before lab 04."""

    def __init__(self) -> None:
        self.answered = 0

    def handle(self, request) -> None:
        raise NotImplementedError("lab 04: DelayedFetch.try_complete: ...")

    def handle_error(self, request) -> None:
        self.answered += 1


class Lines:
    def __init__(self) -> None:
        self.lines: list[tuple[str, dict]] = []

    def error(self, event: str, **fields) -> None:
        self.lines.append((event, fields))


def test_the_same_handler_failure_is_answered_every_time_and_logged_once_an_interval():
    channel, lines, time = RequestChannel(queue_size=10), Lines(), MockTime()
    apis = FailsLikeAHandout()
    pool = KafkaRequestHandlerPool(channel, apis, num_threads=1, errors=RepeatedErrorLog(lines, time, 10_000))
    pool.startup()
    try:
        for _ in range(5):
            channel.send_request(a_request())
        wait_until(lambda: apis.answered == 5, message="five error answers")
        time.advance(10_000)
        channel.send_request(a_request())
        wait_until(lambda: apis.answered == 6, message="the sixth error answer")
    finally:
        pool.shutdown()
    assert [event for event, _ in lines.lines] == ["error handling request"] * 2
    first, second = (fields for _, fields in lines.lines)
    assert first["exc_info"] is True and "suppressed" not in first  # the first, with its traceback
    assert second["suppressed"] == 4  # the four repeats it stands for
