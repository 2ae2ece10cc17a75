"""RPCProducerIdManager with a fake controller channel and a mock clock: the first id waits for the
first block, the next block is asked for when 90% of the current one is handed out, a failed
AllocateProducerIds is logged and asked again after the backoff, and no caller ever blocks."""

from __future__ import annotations

import pytest
import structlog

from kafka.coordinator.transaction import producer_id_manager as module
from kafka.coordinator.transaction.producer_id_manager import (
    RETRY_BACKOFF_MS,
    ProducerIdsUnavailableError,
    RPCProducerIdManager,
)
from kafka.coordinator.transaction.transaction_coordinator import InitProducerIdResult, TransactionCoordinator
from kafka.protocol.errors import Errors
from kafka.protocol.schema import Record
from kafka.utils.time import MockTime

BROKER_ID = 4


class FakeControllerChannel:
    """Keeps each AllocateProducerIds until the test answers it, as the real channel's thread would later."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict, object]] = []

    def send_request(self, body: dict, callback) -> None:
        self.requests.append((body, callback))

    def answer(self, start: int, length: int = 1000) -> None:
        _, callback = self.requests.pop(0)
        callback(Record(throttle_time_ms=0, error_code=Errors.NONE, producer_id_start=start,
                        producer_id_len=length),
                 Errors.NONE)

    def answer_error(self, error: Errors) -> None:
        _, callback = self.requests.pop(0)
        callback(Record(throttle_time_ms=0, error_code=error, producer_id_start=-1, producer_id_len=0),
                 Errors.NONE)

    def fail(self, error: Errors = Errors.REQUEST_TIMED_OUT) -> None:
        """The channel gave up: no controller answered before the deadline."""
        _, callback = self.requests.pop(0)
        callback(None, error)


@pytest.fixture
def time() -> MockTime:
    return MockTime()


@pytest.fixture
def channel() -> FakeControllerChannel:
    return FakeControllerChannel()


@pytest.fixture
def manager(time, channel) -> RPCProducerIdManager:
    return RPCProducerIdManager(BROKER_ID, time, lambda: 17, channel.send_request)


@pytest.fixture
def logs(monkeypatch) -> structlog.testing.CapturingLogger:
    captured = structlog.testing.CapturingLogger()
    monkeypatch.setattr(module, "log", captured)
    return captured


def collect() -> tuple[list, object]:
    answers: list[tuple[int, Errors]] = []
    return answers, lambda producer_id, error: answers.append((producer_id, error))


def test_the_first_id_asks_the_controller_for_a_block_with_this_brokers_id_and_epoch(manager, channel):
    with pytest.raises(ProducerIdsUnavailableError) as e:
        manager.generate_producer_id()
    assert e.value.error == Errors.COORDINATOR_LOAD_IN_PROGRESS  # retriable: the producer tries again
    assert [body for body, _ in channel.requests] == [{"broker_id": BROKER_ID, "broker_epoch": 17}]
    with pytest.raises(ProducerIdsUnavailableError):
        manager.generate_producer_id()
    assert len(channel.requests) == 1, "one request in flight at a time"
    channel.answer(0)
    assert [manager.generate_producer_id() for _ in range(3)] == [0, 1, 2]


def test_the_next_block_is_asked_for_when_90_percent_is_used_and_ids_never_run_dry(manager, channel):
    with pytest.raises(ProducerIdsUnavailableError):
        manager.generate_producer_id()
    channel.answer(5000)
    ids = [manager.generate_producer_id() for _ in range(900)]
    assert ids == list(range(5000, 5900)) and channel.requests == []
    assert manager.generate_producer_id() == 5900  # the 901st: 90% of the block is handed out
    assert len(channel.requests) == 1
    channel.answer(9000)
    ids = [manager.generate_producer_id() for _ in range(99)] + [manager.generate_producer_id()
                                                                 for _ in range(3)]
    assert ids == list(range(5901, 6000)) + [9000, 9001, 9002], "straight on into the prefetched block"
    assert channel.requests == []


def test_a_waiting_init_producer_id_is_answered_when_the_block_arrives(manager, channel):
    answers, callback = collect()
    for _ in range(3):
        manager.generate_producer_id_or_wait(callback)
    assert answers == [] and len(channel.requests) == 1  # parked, no thread held
    channel.answer(0)
    assert answers == [(0, Errors.NONE), (1, Errors.NONE), (2, Errors.NONE)]


def test_a_failed_request_is_logged_and_retried_after_the_backoff(manager, channel, time, logs):
    answers, callback = collect()
    manager.generate_producer_id_or_wait(callback)
    channel.fail(Errors.REQUEST_TIMED_OUT)
    assert answers == [(-1, Errors.COORDINATOR_LOAD_IN_PROGRESS)]
    warning = next(c for c in logs.calls if c.method_name == "warning")
    assert "cannot reach the active controller" in warning.args[0]
    assert warning.kwargs["error"] == "REQUEST_TIMED_OUT"

    manager.generate_producer_id_or_wait(callback)  # within the backoff: not asked again, answered at once
    assert channel.requests == [] and answers[-1] == (-1, Errors.COORDINATOR_LOAD_IN_PROGRESS)
    time.sleep(RETRY_BACKOFF_MS)
    manager.generate_producer_id_or_wait(callback)
    assert len(channel.requests) == 1
    channel.answer(0)
    assert answers[-1] == (0, Errors.NONE)


def test_a_stale_broker_epoch_is_retried_with_the_current_epoch(time, channel, logs):
    epochs = iter([3, 8])
    manager = RPCProducerIdManager(BROKER_ID, time, lambda: next(epochs), channel.send_request)
    answers, callback = collect()
    manager.generate_producer_id_or_wait(callback)
    assert channel.requests[0][0]["broker_epoch"] == 3
    channel.answer_error(Errors.STALE_BROKER_EPOCH)  # we re-registered meanwhile
    assert answers == [(-1, Errors.COORDINATOR_LOAD_IN_PROGRESS)]
    assert any("stale" in c.args[0] for c in logs.calls if c.method_name == "warning")
    time.sleep(RETRY_BACKOFF_MS)
    manager.generate_producer_id_or_wait(callback)
    assert channel.requests[0][0]["broker_epoch"] == 8
    channel.answer(1000)
    assert answers[-1] == (1000, Errors.NONE)


def test_a_failed_prefetch_is_asked_again_before_the_block_runs_out(manager, channel, time):
    manager.generate_producer_id_or_wait(lambda *_: None)
    channel.answer(0)
    for _ in range(901):
        manager.generate_producer_id()
    channel.fail()
    manager.generate_producer_id()  # within the backoff: nothing sent
    assert channel.requests == []
    time.sleep(RETRY_BACKOFF_MS)
    manager.generate_producer_id()
    assert len(channel.requests) == 1


def test_a_block_that_goes_backwards_or_is_empty_is_refused(manager, channel, time, logs):
    manager.generate_producer_id_or_wait(lambda *_: None)
    channel.answer(1000)
    with pytest.raises(ProducerIdsUnavailableError):
        for _ in range(1001):
            manager.generate_producer_id()
    channel.answer(500)  # overlaps the block we handed out: never use it
    time.sleep(RETRY_BACKOFF_MS)
    with pytest.raises(ProducerIdsUnavailableError):
        manager.generate_producer_id()
    channel.answer(3000, 0)
    time.sleep(RETRY_BACKOFF_MS)
    with pytest.raises(ProducerIdsUnavailableError):
        manager.generate_producer_id()
    channel.answer(3000)
    assert manager.generate_producer_id() == 3000
    assert sum(1 for c in logs.calls if c.method_name == "error") == 2


def test_a_channel_that_answers_on_the_calling_thread_does_not_deadlock(time):
    def send_request(body, callback):
        callback(Record(throttle_time_ms=0, error_code=Errors.NONE, producer_id_start=0,
                        producer_id_len=1000),
                 Errors.NONE)

    manager = RPCProducerIdManager(BROKER_ID, time, lambda: 1, send_request)
    answers, callback = collect()
    manager.generate_producer_id_or_wait(callback)
    assert answers == [(0, Errors.NONE)]


def test_init_producer_id_without_a_transactional_id_gets_a_fresh_id_with_epoch_0(manager, channel, time):
    coordinator = TransactionCoordinator(manager, time=time)
    results: list[InitProducerIdResult] = []
    coordinator.handle_init_producer_id(None, 60_000, None, results.append)
    channel.answer(0)
    coordinator.handle_init_producer_id(None, 60_000, (0, 0), results.append)  # KIP-360 bump: a new id too
    assert results == [InitProducerIdResult(0, 0, Errors.NONE), InitProducerIdResult(1, 0, Errors.NONE)]


def test_init_producer_id_with_a_transactional_id_is_refused_clearly(manager, channel, time):
    coordinator = TransactionCoordinator(manager, time=time)
    results: list[InitProducerIdResult] = []
    coordinator.handle_init_producer_id("", 60_000, None, results.append)
    coordinator.handle_init_producer_id("orders-tx", 60_000, None, results.append)
    assert results == [InitProducerIdResult(-1, -1, Errors.INVALID_REQUEST)] * 2
    assert not Errors.INVALID_REQUEST.retriable
    assert channel.requests == [], "no ids are taken for a request that is refused"
