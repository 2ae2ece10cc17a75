"""ForwardingManager: a forward returns at once and its callback runs once, on another thread --
REQUEST_TIMED_OUT from the scheduler when the controller never answers, BROKER_NOT_AVAILABLE at
shutdown. The controller here is a real listening socket that accepts connections and answers
nothing (a paused controller as the channel sees it); the channel is the broker's own
NodeToControllerChannelManager, on a MockTime."""

from __future__ import annotations

import socket
import threading

import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.forwarding_manager import ForwardingManager
from kafka.server.node_to_controller_channel_manager import NodeToControllerChannelManager
from kafka.utils.kafka_scheduler import KafkaScheduler
from kafka.utils.time import MockTime
from tests.helpers import wait_until

TIMEOUT_MS = 30_000


class Outcome:
    """What a forward's callback received, and on which thread."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, Errors, str]] = []

    def __call__(self, response, error: Errors) -> None:
        self.calls.append((response, error, threading.current_thread().name))


@pytest.fixture
def silent_controller():
    """A controller that takes the connection and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    yield server.getsockname()[1]
    server.close()


@pytest.fixture
def forwarding(silent_controller):
    time = MockTime()
    channel = NodeToControllerChannelManager(1, {1: ("127.0.0.1", silent_controller)}, lambda: 1,
                                             request_timeout_ms=TIMEOUT_MS, retry_backoff_ms=100, time=time)
    scheduler = KafkaScheduler(time, thread_name="forwarding-test-scheduler", tick_ms=10)
    channel.start()
    scheduler.startup()
    manager = ForwardingManager(channel, scheduler)
    yield manager, time
    manager.shutdown()
    scheduler.shutdown()
    channel.shutdown()


def create_topics_body(name: str) -> dict:
    return dict(topics=[dict(name=name, num_partitions=1, replication_factor=1, assignments=[], configs=[])],
                timeout_ms=TIMEOUT_MS, validate_only=False)


def test_a_forward_the_controller_never_answers_is_timed_out_by_the_scheduler(forwarding):
    manager, time = forwarding
    outcome = Outcome()
    manager.forward_request(ApiKey.CREATE_TOPICS, create_topics_body("t"), TIMEOUT_MS, outcome)
    assert outcome.calls == [] and manager.pending_count == 1, "returns at once; nothing waits"

    time.advance(TIMEOUT_MS - 1)
    time.advance(1)
    wait_until(lambda: outcome.calls, message="the timed-out forward to be answered")
    ((response, error, thread),) = outcome.calls
    assert (response, error) == (None, Errors.REQUEST_TIMED_OUT)
    assert thread != threading.current_thread().name, "answered by a timer, not by the thread that forwarded"
    assert manager.pending_count == 0


def test_shutdown_answers_every_pending_forward_and_refuses_new_ones(forwarding):
    manager, _ = forwarding
    first, second = Outcome(), Outcome()
    manager.forward_request(ApiKey.CREATE_TOPICS, create_topics_body("a"), TIMEOUT_MS, first)
    manager.forward_request(ApiKey.DELETE_TOPICS, dict(topic_names=["b"], timeout_ms=TIMEOUT_MS), TIMEOUT_MS,
                            second)
    assert manager.pending_count == 2

    manager.shutdown()
    assert [c[:2] for c in first.calls + second.calls] == [(None, Errors.BROKER_NOT_AVAILABLE)] * 2
    late = Outcome()
    manager.forward_request(ApiKey.CREATE_TOPICS, create_topics_body("c"), TIMEOUT_MS, late)
    assert [c[:2] for c in late.calls] == [(None, Errors.BROKER_NOT_AVAILABLE)]


def test_each_forward_is_answered_once_even_when_the_timer_and_shutdown_race(forwarding):
    manager, time = forwarding
    outcome = Outcome()
    manager.forward_request(ApiKey.CREATE_TOPICS, create_topics_body("t"), TIMEOUT_MS, outcome)
    time.advance(TIMEOUT_MS)
    manager.shutdown()
    wait_until(lambda: outcome.calls, message="an answer")
    time.advance(TIMEOUT_MS)
    assert len(outcome.calls) == 1


def test_a_callback_that_raises_does_not_stop_the_thread_that_ran_it(forwarding):
    manager, time = forwarding

    def broken(response, error):
        raise RuntimeError("a handler's bug")

    outcome = Outcome()
    manager.forward_request(ApiKey.CREATE_TOPICS, create_topics_body("a"), TIMEOUT_MS, broken)
    manager.forward_request(ApiKey.CREATE_TOPICS, create_topics_body("b"), TIMEOUT_MS + 1000, outcome)
    time.advance(TIMEOUT_MS + 1000)
    wait_until(lambda: outcome.calls, message="the second forward's answer, after the first callback raised")
    assert outcome.calls[0][1] == Errors.REQUEST_TIMED_OUT
