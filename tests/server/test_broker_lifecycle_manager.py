"""BrokerLifecycleManager's schedule after failures (Kafka's scheduleNextCommunicationAfterFailure): a
registration or heartbeat that fails is sent again after an exponential backoff, 100 ms doubling up to
half of broker.session.timeout.ms, and one answered heartbeat starts the count again. On a MockTime,
with the answers handed to the manager's callbacks as its NodeToControllerChannelManager would."""

from __future__ import annotations

from types import SimpleNamespace

from kafka.protocol.errors import Errors
from kafka.server.broker_lifecycle_manager import BrokerLifecycleManager, BrokerState
from kafka.server.kafka_config import KafkaConfig
from kafka.utils.time import MockTime

SESSION_TIMEOUT_MS = 9000


class SentRequests:
    """The channel's side the manager sees: what it sent, and with which callback."""

    def __init__(self) -> None:
        self.sent: list[tuple[object, dict, object]] = []

    def send_request(self, api_key, body, callback, timeout_ms) -> None:
        self.sent.append((api_key, body, callback))


def manager(time: MockTime) -> BrokerLifecycleManager:
    config = KafkaConfig({"node.id": "4", "process.roles": "broker",
                          "controller.listener.names": "CONTROLLER",
                          "controller.quorum.voters": "1@127.0.0.1:9093",
                          "broker.session.timeout.ms": str(SESSION_TIMEOUT_MS)})
    return BrokerLifecycleManager(config, time, SentRequests(), "cluster", highest_metadata_offset=lambda: 0,
                                  features=[])


def next_attempt_in(lifecycle: BrokerLifecycleManager, time: MockTime) -> int:
    return lifecycle._next_attempt_ms - time.milliseconds()


def delays_after(failures: int, lifecycle: BrokerLifecycleManager, send, answer_with_error,
                 time: MockTime) -> list[int]:
    """Send and fail `failures` times; how long the manager waits after each failure."""
    delays = []
    for _ in range(failures):
        send()
        answer_with_error()
        delays.append(next_attempt_in(lifecycle, time))
    return delays


def test_failed_heartbeats_back_off_exponentially_up_to_half_a_session_and_an_answer_resets_them():
    time = MockTime()
    lifecycle = manager(time)
    lifecycle.broker_epoch, lifecycle.state = 7, BrokerState.RUNNING
    delays = delays_after(8, lifecycle, lifecycle._send_broker_heartbeat,
                          lambda: lifecycle._on_heartbeat(None, Errors.REQUEST_TIMED_OUT), time)
    # 100, 200, 400, ... each within its 2 % jitter, never past half a session timeout
    for attempt, delay in enumerate(delays):
        expected = min(100 * 2 ** attempt, SESSION_TIMEOUT_MS // 2)
        assert abs(delay - expected) <= expected * 0.02 + 1, (attempt, delays)
    assert max(delays) <= SESSION_TIMEOUT_MS // 2

    answered = SimpleNamespace(error_code=0, is_caught_up=True, is_fenced=False, should_shut_down=False)
    lifecycle._on_heartbeat(answered, Errors.NONE)
    assert lifecycle._failed_attempts == 0
    lifecycle._on_heartbeat(None, Errors.REQUEST_TIMED_OUT)
    assert abs(next_attempt_in(lifecycle, time) - 100) <= 3, "one answer starts the backoff from 100 ms again"


def test_failed_registrations_back_off_the_same_way():
    time = MockTime()
    lifecycle = manager(time)
    lifecycle.listeners = []
    delays = delays_after(4, lifecycle, lifecycle._send_broker_registration,
                          lambda: lifecycle._on_registration(None, Errors.REQUEST_TIMED_OUT), time)
    assert [round(d, -2) for d in delays] == [100, 200, 400, 800], delays
    assert lifecycle.broker_epoch == -1
