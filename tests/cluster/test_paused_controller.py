"""Acceptance (issue 31, item 1): no I/O thread waits on the controller.

Two processes as an operator deploys them apart: a controller alone (process.roles=controller) and a
broker alone (process.roles=broker) with two I/O threads. The controller is paused with SIGSTOP, so
everything forwarded to it gets no answer. Several CreateTopics wait on it -- more than there are
I/O threads, which used to hold every I/O thread for the forward's 30 s -- while produce and fetch
to an existing topic are answered as quickly as ever, a produce to an unknown topic is answered
UNKNOWN_TOPIC_OR_PARTITION, and a Metadata request that auto-creates a topic answers
LEADER_NOT_AVAILABLE at once. Once the controller runs again, the waiting CreateTopics are answered.
"""

from __future__ import annotations

import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import decode_response, encode_request
from kafka.protocol.record_batch import build_batch
from tests.cluster.kraft_cluster import run_tool
from tests.helpers import REPO, free_port, wait_until
from tests.wire import WireClient

pytestmark = pytest.mark.timeout(180)

# What a produce or fetch of one small batch takes on a loaded two-core machine, with room to spare;
# the blocking design answered none of them before the CreateTopics' 30 s forward timeout.
USUAL_MS = 2000
CREATE_TOPICS_IN_FLIGHT = 4  # twice num.io.threads


class RoleProcess:
    """One node, `python -m kafka <its properties>`, formatted first as `kafka-storage format` does."""

    def __init__(self, root: Path, name: str, props: dict[str, str]) -> None:
        self.config_path = root / f"{name}.properties"
        self.log_path = root / f"{name}.log"
        self.config_path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        self.process: subprocess.Popen | None = None

    def format(self, cluster_id: str) -> None:
        result = run_tool("kafka.tools.storage_tool", "format", "-t", cluster_id, "-c", str(self.config_path))
        assert result.returncode == 0, result.stderr

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "kafka", str(self.config_path)],
                                            stdout=log,
                                            stderr=subprocess.STDOUT, cwd=REPO)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGCONT)  # a stopped process cannot act on SIGTERM
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(40)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


@contextmanager
def controller_and_broker(root: Path, request) -> Iterator[tuple[RoleProcess, int]]:
    controller_port, broker_port = free_port(), free_port()
    common = {"controller.quorum.voters": f"1@127.0.0.1:{controller_port}",
              "controller.listener.names": "CONTROLLER",
              "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
              "metrics.listener": "http://127.0.0.1:0"}
    controller = RoleProcess(root, "controller", {
        **common, "process.roles": "controller", "node.id": "1",
        "listeners": f"CONTROLLER://127.0.0.1:{controller_port}", "log.dirs": str(root / "controller")})
    broker = RoleProcess(root, "broker", {
        **common, "process.roles": "broker", "node.id": "2",
        "listeners": f"PLAINTEXT://127.0.0.1:{broker_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{broker_port}",
        "log.dirs": str(root / "broker"), "num.io.threads": "2", "num.network.threads": "1",
        "offsets.topic.replication.factor": "1", "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1"})
    cluster_id = run_tool("kafka.tools.storage_tool", "random-uuid").stdout.strip()
    for node in (controller, broker):
        node.format(cluster_id)
        node.start()
    try:
        wait_until(lambda: "started" in broker.output() and "node_id=2" in broker.output(), timeout=60,
                   message="the broker to start", interval=0.1)
        yield controller, broker_port
    finally:
        for node in (broker, controller):
            node.stop()
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            print(f"===== controller =====\n{controller.output()[-6000:]}\n===== broker "
                  f"=====\n{broker.output()[-6000:]}")


def create_topics_frame(correlation_id: int, name: str) -> bytes:
    return encode_request(APIS[ApiKey.CREATE_TOPICS], 7, correlation_id, "waits", {
        "timeout_ms": 30_000, "validate_only": False,
        "topics": [{"name": name, "num_partitions": 1, "replication_factor": 1}]})


def produce(client: WireClient, topic: str, value: bytes) -> tuple[int, int]:
    response = client.request(ApiKey.PRODUCE, 9, {"acks": 1, "timeout_ms": 5000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": build_batch([(None, value)])}]}]})
    answer = response.responses[0].partition_responses[0]
    return answer.error_code, answer.base_offset


def fetch(client: WireClient, topic: str, offset: int):
    response = client.request(ApiKey.FETCH, 12, {
        "replica_id": -1, "max_wait_ms": 0, "min_bytes": 1, "max_bytes": 1 << 20, "isolation_level": 0,
        "session_id": 0, "session_epoch": -1, "topics": [{"topic": topic, "partitions": [
            {"partition": 0, "fetch_offset": offset, "partition_max_bytes": 1 << 20}]}]})
    return response.responses[0].partitions[0]


def timed(call):
    started = time.monotonic()
    result = call()
    return result, (time.monotonic() - started) * 1000


def test_produce_and_fetch_are_answered_while_create_topics_wait_on_a_paused_controller(tmp_path, request):
    with controller_and_broker(tmp_path, request) as (controller, port):
        client = WireClient(port, timeout=USUAL_MS / 1000 * 5)
        created = client.request(ApiKey.CREATE_TOPICS, 7, {"timeout_ms": 30_000, "topics": [
            {"name": "live", "num_partitions": 1, "replication_factor": 1}]})
        assert created.topics[0].error_code == Errors.NONE
        wait_until(lambda: produce(client, "live", b"before")[0] == Errors.NONE,
                   message="the broker to lead live")

        controller.process.send_signal(signal.SIGSTOP)
        waiting = [WireClient(port, timeout=60) for _ in range(CREATE_TOPICS_IN_FLIGHT)]
        for i, connection in enumerate(waiting):
            connection.send_frame(create_topics_frame(1, f"new-{i}"))

        for attempt in range(3):  # each round trip while every CreateTopics is still unanswered
            (error, offset), produce_ms = timed(lambda a=attempt: produce(client, "live", b"during-%d" % a))
            assert error == Errors.NONE and produce_ms < USUAL_MS, (error, produce_ms)
            data, fetch_ms = timed(lambda o=offset: fetch(client, "live", o))
            assert data.error_code == Errors.NONE and data.high_watermark == offset + 1
            assert fetch_ms < USUAL_MS

        (error, _), unknown_ms = timed(lambda: produce(client, "nowhere", b"lost"))
        assert error == Errors.UNKNOWN_TOPIC_OR_PARTITION and unknown_ms < USUAL_MS
        metadata, metadata_ms = timed(lambda: client.request(ApiKey.METADATA, 9, {
            "topics": [{"name": "auto"}], "allow_auto_topic_creation": True}))
        assert metadata.topics[0].error_code == Errors.LEADER_NOT_AVAILABLE and metadata_ms < USUAL_MS
        again = client.request(ApiKey.METADATA, 9,
                               {"topics": [{"name": "auto"}], "allow_auto_topic_creation": True})
        assert again.topics[0].error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION, "in flight: not sent twice"

        readable, _, _ = select.select([c.sock for c in waiting], [], [], 0)
        assert not readable, "the CreateTopics wait for the controller"

        controller.process.send_signal(signal.SIGCONT)
        for i, connection in enumerate(waiting):
            _, response = decode_response(APIS[ApiKey.CREATE_TOPICS], 7, connection.read_frame())
            assert (response.topics[0].name, response.topics[0].error_code) == (f"new-{i}", Errors.NONE)
            connection.close()
        def auto_created() -> bool:
            metadata = client.request(ApiKey.METADATA, 9, {"topics": [{"name": "auto"}],
                                                           "allow_auto_topic_creation": True})
            return metadata.topics[0].error_code == Errors.NONE
        wait_until(auto_created, timeout=30, message="the auto-created topic")
        client.close()
