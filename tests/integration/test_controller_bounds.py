"""Acceptance (issue 27, item 2): one request cannot hang the controller. A broker process is asked
for a million partitions, sent malformed admin requests over a raw socket, and stopped with SIGTERM
while its controller is busy; it answers with Kafka's error codes, keeps serving, and exits in time.

Each broker is capped at 4 GB of address space (prlimit), so a regression costs a MemoryError in
the broker rather than the memory of the machine running the tests.
"""

from __future__ import annotations

import resource
import select
import signal
import time

import pytest
from confluent_kafka import Producer

from kafka.clients.admin.admin_client import AdminClient, NewTopic
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import encode_request
from tests.helpers import free_port, wait_until
from tests.integration.test_bad_input import assert_still_serving
from tests.wire import WireClient

MILLION = 1_000_000
ADDRESS_SPACE_LIMIT = 4 * 1024**3


def start(broker_process, overrides: dict[str, str] | None = None, port: int | None = None):
    broker = broker_process(overrides=overrides, port=port)
    resource.prlimit(broker.process.pid, resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))
    return broker


def peak_rss_mb(pid: int) -> int:
    """The broker's high-water mark of resident memory (VmHWM), in MB."""
    with open(f"/proc/{pid}/status") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1]) // 1024


def produce_one(bootstrap: str, topic: str) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    delivered = []
    producer.produce(topic, b"still here", on_delivery=lambda err, msg: delivered.append(err))
    assert producer.flush(30) == 0
    assert delivered == [None]


def test_a_million_partitions_is_refused_at_once_and_the_broker_carries_on(broker_process):
    broker = start(broker_process)
    admin = AdminClient({"bootstrap.servers": broker.bootstrap, "request.timeout.ms": 60_000})
    try:
        assert admin.create_topics([NewTopic("small", 1, 1)]) == {"small": None}
        idle_mb = peak_rss_mb(broker.process.pid)
        for validate_only in (True, False):
            created = admin.create_topics([NewTopic("huge", MILLION, 1)], validate_only=validate_only)
            grown = admin.create_partitions({"small": MILLION}, validate_only=validate_only)
            for error in (created["huge"], grown["small"]):
                assert error is not None and error.error == Errors.POLICY_VIOLATION, error
                assert str(error) == "POLICY_VIOLATION: Excessively large number of partitions per request."
        assert admin.describe_topics(["small"])["small"].partitions[0].leader == 1
        assert "huge" not in admin.list_topics()
    finally:
        admin.close()
    # Before the bound, each of these held 700 MB to 1.1 GB at its peak (issue 27); allow for noise.
    assert peak_rss_mb(broker.process.pid) < idle_mb + 200
    produce_one(broker.bootstrap, "small")


def test_malformed_admin_requests_get_kafkas_error_codes(broker_process):
    broker = start(broker_process)
    client = WireClient(broker.port, timeout=60)
    try:
        create = client.request(ApiKey.CREATE_TOPICS, 7,
                                {"timeout_ms": 30_000, "validate_only": False, "topics": [
            {"name": "t", "num_partitions": 1, "replication_factor": 1},
            {"name": "negative", "num_partitions": -5, "replication_factor": 1},
            {"name": "no-replicas", "num_partitions": 1, "replication_factor": -3},
            {"name": "too-many-replicas", "num_partitions": 1, "replication_factor": 3},
            {"name": "x" * 250, "num_partitions": 1, "replication_factor": 1},
            {"name": "unknown-brokers", "num_partitions": -1, "replication_factor": -1, "assignments": [
                {"partition_index": 0, "broker_ids": list(range(2, 100_002))}]},
            {"name": "same-broker-twice", "num_partitions": -1, "replication_factor": -1, "assignments": [
                {"partition_index": 0, "broker_ids": [1, 1]}]},
        ]})
        errors = {t.name[:20]: (t.error_code, t.error_message or "") for t in create.topics}
        assert {name: code for name, (code, _) in errors.items()} == {
            "t": Errors.NONE, "negative": Errors.INVALID_PARTITIONS,
            "no-replicas": Errors.INVALID_REPLICATION_FACTOR,
            "too-many-replicas": Errors.INVALID_REPLICATION_FACTOR, "x" * 20: Errors.INVALID_TOPIC_EXCEPTION,
            "unknown-brokers": Errors.INVALID_REPLICA_ASSIGNMENT,
            "same-broker-twice": Errors.INVALID_REPLICA_ASSIGNMENT}
        assert len(errors["unknown-brokers"][1]) < 200  # one broker named, not a hundred thousand

        grow = client.request(ApiKey.CREATE_PARTITIONS, 3,
                              {"timeout_ms": 30_000, "validate_only": False, "topics": [
            {"name": "t", "count": 2, "assignments": [{"broker_ids": list(range(2, 100_002))}]}]})
        assert grow.results[0].error_code == Errors.INVALID_REPLICA_ASSIGNMENT

        # 10,001 topics of one partition each: the cap is on the sum over the request
        many = client.request(ApiKey.CREATE_TOPICS, 7,
                              {"timeout_ms": 30_000, "validate_only": True, "topics": [
            {"name": f"many-{i}", "num_partitions": 1, "replication_factor": 1} for i in range(10_001)]})
        assert {t.error_code for t in many.topics} == {Errors.POLICY_VIOLATION}

        elect = client.request(ApiKey.ELECT_LEADERS, 2, {"election_type": 0, "timeout_ms": 30_000,
                                                         "topic_partitions": [{"topic": "t",
                                                                               "partitions": [0] * 200_000}]})
        assert [len(t.partition_result) for t in elect.replica_election_results] == [1]
    finally:
        client.close()
    assert_still_serving(broker.port)
    produce_one(broker.bootstrap, "t")


def test_sigterm_while_the_controller_is_busy_ends_the_node(broker_process):
    """The controller's event queue is kept busy two ways: by a request no bound stops (2**31 - 1
    partitions, validate_only) and by many legal ones sent straight to its listener (each adding
    9,998 partitions, validate_only): seconds of work queued ahead of the broker's own controlled-
    shutdown heartbeat. SIGTERM must still end the process within a bounded time."""
    port, controller_port = free_port(), free_port()
    broker = start(broker_process, overrides={
        "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
        "controller.listener.names": "CONTROLLER", "broker.session.timeout.ms": "6000"}, port=port)
    client = WireClient(port, timeout=30)
    assert client.request(ApiKey.CREATE_TOPICS, 7, {"timeout_ms": 30_000, "topics": [
        {"name": "t", "num_partitions": 1, "replication_factor": 1}]}).topics[0].error_code == Errors.NONE
    idle_mb = peak_rss_mb(broker.process.pid)

    create_partitions = APIS[ApiKey.CREATE_PARTITIONS]
    client.send_frame(encode_request(create_partitions, 3, 99, "hostile", {
        "topics": [{"name": "t", "count": 2**31 - 1, "assignments": None}], "timeout_ms": 30_000,
        "validate_only": True}))
    # One request per connection: a connection has one request in the queue at a time (it is muted
    # until answered), so 150 connections queue 150 events of about 75 ms each.
    flood = [WireClient(controller_port, timeout=30) for _ in range(150)]
    for connection in flood:
        connection.send_frame(encode_request(create_partitions, 3, 1, "flood", {
            "topics": [{"name": "t", "count": 9_999, "assignments": None}], "timeout_ms": 30_000,
            "validate_only": True}))

    def controller_busy() -> bool:
        answered, _, _ = select.select([c.sock for c in flood], [], [], 0)
        return bool(answered) or peak_rss_mb(broker.process.pid) > idle_mb + 200

    wait_until(controller_busy, timeout=30, message="the controller to be at work")
    stopped_at = time.monotonic()
    broker.process.send_signal(signal.SIGTERM)
    try:
        broker.process.wait(timeout=20)
    except Exception:
        pytest.fail(f"the node did not exit within 20 s of SIGTERM:\n{broker.output()[-3000:]}")
    finally:
        for connection in [client, *flood]:
            connection.close()
    assert broker.process.returncode == 0, broker.output()[-3000:]
    assert time.monotonic() - stopped_at < 20
