"""Lab 04, purgatory (docs/labs/04-purgatory.md): `DelayedFetch.try_complete` in
kafka/server/delayed_fetch.py, the condition that lets a long-polling fetch out of the fetch
purgatory, inside a real ReplicaManager on a mock clock, then on a real broker.

Seed 002: "consumers can be configured to wait for a minimum number of bytes of data, or to wait
for a maximum amount of time before returning a response to a fetch request. While waiting for
these criteria to be met, the fetch request is sent to purgatory." Seed 000: a delayed operation
completes when try_complete says so, or expires; either way on_complete runs once.
"""

from __future__ import annotations

import pytest

from kafka.log.file_records import FileRecords
from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.server.fetch_partition_data import FetchPartitionInfo
from kafka.server.kafka_config import KafkaConfig
from kafka.server.metadata_cache import PartitionState
from kafka.server.replica_manager import FetchParams, ReplicaManager
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import wait_until
from tests.integration.test_long_poll import background, create, fetch_body, produce
from tests.wire import WireClient

TP = TopicPartition("lab04", 0)
FOLLOWER = 2


@pytest.fixture
def clock():
    return MockTime()


def replica_manager_with(tmp_path, clock, replicas: tuple[int, ...]):
    config = KafkaConfig({"node.id": "1", "log.dirs": str(tmp_path)})
    log_manager = LogManager([str(tmp_path)], LogConfig(), clock, node_id=1)
    log_manager.startup()
    manager = ReplicaManager(
        config, log_manager, metadata_cache=None, time=clock,
        produce_purgatory=DelayedOperationPurgatory("Produce", reaper_enabled=False, time=clock),
        fetch_purgatory=DelayedOperationPurgatory("Fetch", reaper_enabled=False, time=clock))
    manager.make_leader(TP, PartitionState(0, leader=1, leader_epoch=0, replicas=replicas, isr=replicas),
                        LogConfig())
    return manager, log_manager


@pytest.fixture
def manager(tmp_path, clock):
    """This broker leads lab04-0 alone: an append is committed (the high watermark moves) at once."""
    manager, log_manager = replica_manager_with(tmp_path, clock, (1,))
    yield manager
    manager.shutdown()
    log_manager.shutdown()


@pytest.fixture
def manager_with_follower(tmp_path, clock):
    """lab04-0 has a follower in the ISR: an append is committed only once the follower has fetched it."""
    manager, log_manager = replica_manager_with(tmp_path, clock, (1, FOLLOWER))
    yield manager
    manager.shutdown()
    log_manager.shutdown()


class Answers(list):
    """The response callback: each call appends the fetch's partition results."""

    def __call__(self, results) -> None:
        self.append(results)

    def records(self) -> list[bytes]:
        """The values the one answer carries (a zero-copy read hands a FileRecords slice of the segment)."""
        [results] = self
        [(_, data)] = results
        records = data.records.read_all() if isinstance(data.records, FileRecords) else data.records
        return [r.value for batch in iter_batches(records) for r in batch]


def consumer_fetch(manager, answers, offset=0, min_bytes=1, max_wait_ms=500) -> None:
    params = FetchParams(replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=1 << 20)
    manager.fetch_messages(params, [(TP, FetchPartitionInfo(offset, 1 << 20))], answers)


def append(manager, *values: bytes) -> None:
    manager.append_records(1000, 1, False, {TP: build_batch([(None, v) for v in values])}, lambda _: None)


def expire(manager, clock, ms: int) -> None:
    clock.advance(ms)
    manager.delayed_fetch_purgatory.advance_clock(0)


def test_a_fetch_with_nothing_to_read_waits_in_the_purgatory(manager):
    """a fetch with nothing to read waits in the fetch purgatory instead of answering at once"""
    answers = Answers()
    consumer_fetch(manager, answers)
    assert answers == [], (
        "answered at once: try_complete must return False while fewer than min_bytes are readable")
    assert manager.delayed_fetch_purgatory.num_delayed() == 1, "the fetch should be waiting in the purgatory"


def test_an_append_completes_a_waiting_fetch_at_once(manager):
    """an append completes a waiting fetch at once, with the new record"""
    answers = Answers()
    consumer_fetch(manager, answers)
    append(manager, b"hello")
    assert len(answers) == 1, (
        "the append moved the high watermark; check_and_complete should have let the fetch out")
    assert answers.records() == [b"hello"]
    assert manager.delayed_fetch_purgatory.num_delayed() == 0


def test_a_fetch_waits_for_min_bytes(manager):
    """a fetch waits until fetch.min.bytes have accumulated below the high watermark, then completes"""
    answers = Answers()
    consumer_fetch(manager, answers, min_bytes=300)
    append(manager, b"x" * 100)
    assert answers == [], "about 170 bytes are readable, fewer than min_bytes=300: keep waiting"
    append(manager, b"y" * 100)
    assert len(answers) == 1, "about 340 bytes are readable now, at least min_bytes=300: complete"
    assert answers.records() == [b"x" * 100, b"y" * 100]


def test_a_waiting_fetch_expires_after_max_wait_with_what_there_is(manager, clock):
    """after fetch.max.wait.ms a waiting fetch is answered with whatever there is"""
    answers = Answers()
    consumer_fetch(manager, answers, min_bytes=10_000, max_wait_ms=500)
    append(manager, b"small")
    expire(manager, clock, 499)
    assert answers == [], "499 ms of 500: still waiting"
    expire(manager, clock, 2)
    assert len(answers) == 1 and answers.records() == [b"small"], (
        "the timeout answers with the bytes there are")
    assert manager.expired_fetch_count == 1


def test_uncommitted_bytes_do_not_count(manager_with_follower):
    """a consumer's fetch counts only committed bytes: records above the high watermark do not complete it"""
    manager = manager_with_follower
    answers = Answers()
    consumer_fetch(manager, answers)
    append(manager, b"not yet committed")
    assert answers == [], "the follower has not fetched the record: it is above the high watermark, invisible"
    params = FetchParams(replica_id=FOLLOWER, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20)
    manager.fetch_messages(params, [(TP, FetchPartitionInfo(1, 1 << 20, current_leader_epoch=0))],
                           lambda _: None)
    assert len(answers) == 1, (
        "the follower fetched offset 1, so it has offset 0: the HW moved and the fetch completes")


def test_a_fetch_whose_partition_goes_away_completes(manager):
    """a waiting fetch whose partition is deleted is answered at once (case A), not left to expire"""
    answers = Answers()
    consumer_fetch(manager, answers)
    manager.delete_partitions(TP.topic)
    assert len(answers) == 1, "the partition is gone: try_complete should force_complete"


def test_a_fetch_whose_offset_left_the_log_completes(manager):
    """a waiting fetch whose offset is no longer in the log
    (records deleted below it) is answered at once (case A)"""
    append(manager, b"a", b"b", b"c")
    answers = Answers()
    consumer_fetch(manager, answers, offset=1, min_bytes=1_000_000)
    assert answers == []
    manager.delete_records(TP, 2)  # the log now starts at offset 2, after the fetch's offset 1
    manager.try_complete_delayed_requests(TP)
    assert len(answers) == 1, (
        "offset 1 is below the log start offset 2: complete now, the read reports the error")


def test_a_broker_long_polls(broker):
    """a real broker holds an empty fetch in the purgatory and answers it as soon as a record arrives"""
    admin = WireClient(broker.port)
    create(admin, "lab04")
    consumer = WireClient(broker.port, timeout=20)
    thread, result = background(lambda: consumer.request(ApiKey.FETCH, 12, fetch_body("lab04", 0, 15_000)))
    purgatory = broker.server.replica_manager.delayed_fetch_purgatory
    wait_until(lambda: purgatory.num_delayed() > 0 or not thread.is_alive(), timeout=10,
               message="the fetch to wait in the purgatory")
    if not thread.is_alive():
        error = Errors.for_code(result["value"].responses[0].partitions[0].error_code).name
        raise AssertionError(f"the empty fetch was answered at once ({error}) instead of waiting in the "
                             "purgatory")
    produce(admin, "lab04", b"hello")
    thread.join(10)
    assert not thread.is_alive(), "the record arrived but the fetch kept waiting (for up to 15 s)"
    partition = result["value"].responses[0].partitions[0]
    answered = Errors.for_code(partition.error_code).name
    assert partition.error_code == Errors.NONE, f"the fetch was answered {answered}"
    assert [r.value for batch in iter_batches(partition.records) for r in batch] == [b"hello"]
    admin.close()
    consumer.close()
