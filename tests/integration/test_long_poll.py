"""Acceptance: fetches wait in the purgatory without holding an I/O thread, and answer as soon as
data arrives (seed 002: "wait for enough bytes to be accumulated or enough time has passed")."""

from __future__ import annotations

import threading
import time

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch, iter_batches
from tests.helpers import wait_until
from tests.wire import WireClient


def create(client: WireClient, topic: str) -> None:
    response = client.request(ApiKey.CREATE_TOPICS, 7, {
        "topics": [{"name": topic, "num_partitions": 1, "replication_factor": 1}], "timeout_ms": 5000})
    assert response.topics[0].error_code == Errors.NONE


def fetch_body(topic: str, offset: int, max_wait_ms: int, min_bytes: int = 1) -> dict:
    return {"replica_id": -1, "max_wait_ms": max_wait_ms, "min_bytes": min_bytes, "max_bytes": 1 << 20,
            "isolation_level": 0, "session_id": 0, "session_epoch": -1,
            "topics": [{"topic": topic, "partitions": [
                {"partition": 0, "fetch_offset": offset, "partition_max_bytes": 1 << 20}]}]}


def produce(client: WireClient, topic: str, value: bytes) -> None:
    response = client.request(ApiKey.PRODUCE, 9, {"acks": -1, "timeout_ms": 5000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": build_batch([(None, value)])}]}]})
    assert response.responses[0].partition_responses[0].error_code == Errors.NONE


def background(fn):
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("value", fn()), daemon=True)
    thread.start()
    return thread, result


def test_waiting_fetch_is_answered_when_a_record_arrives(start_broker):
    # One I/O thread: if a waiting fetch held it, the produce below could never be handled.
    broker = start_broker(overrides={"num.io.threads": "1"})
    admin = WireClient(broker.port)
    create(admin, "poll")
    consumer = WireClient(broker.port, timeout=20)
    # max_wait far beyond the socket timeout: only the arriving record can answer it in time.
    thread, result = background(lambda: consumer.request(ApiKey.FETCH, 12, fetch_body("poll", 0, 60_000)))
    ready = broker.server.replica_manager.delayed_fetch_purgatory
    wait_until(lambda: ready.watched() > 0, timeout=10, message="the fetch to enter the purgatory")

    assert admin.request(ApiKey.METADATA, 12, {"topics": None}).brokers, "other requests still served"
    produce(admin, "poll", b"hello")
    thread.join(15)
    partition = result["value"].responses[0].partitions[0]
    assert partition.error_code == Errors.NONE and partition.high_watermark == 1
    [batch] = list(iter_batches(partition.records))
    assert [r.value for r in batch] == [b"hello"]
    assert ready.watched() == 0 or ready.num_delayed() == 0


def test_idle_fetch_waits_max_wait_then_answers_empty(broker):
    client = WireClient(broker.port)
    create(client, "idle")
    started = time.monotonic()
    response = client.request(ApiKey.FETCH, 12, fetch_body("idle", 0, 300))
    waited = time.monotonic() - started
    partition = response.responses[0].partitions[0]
    assert partition.error_code == Errors.NONE and not partition.records
    assert waited >= 0.29, f"an empty fetch waits fetch.max.wait.ms, answered after {waited:.3f}s"


def test_fetch_with_error_is_not_delayed(broker):
    client = WireClient(broker.port, timeout=10)
    create(client, "oor")
    response = client.request(ApiKey.FETCH, 12, fetch_body("oor", 5, 60_000))
    assert response.responses[0].partitions[0].error_code == Errors.OFFSET_OUT_OF_RANGE
