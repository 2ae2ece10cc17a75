"""Kafka Connect in distributed mode on this broker: `make demo-connect` (examples/connect/demo.sh) as a test
(issue 42; docs/ecosystem.md#kafka-connect).

Two workers of connect-runtime 4.3.1 (tests/jvm/pom.xml's `connect` profile: the newest release whose
connect-file jar Maven Central serves, so worker and connectors come from one release) start from
examples/connect/worker-N.properties, with this test's broker and free REST ports appended, beside a broker
started as `make run` starts it. They form one Connect cluster: a group of protocol type `connect` on the
broker's classic group coordinator, its state in three compacted topics. Through the REST API, as the demo
does with curl, a FileStreamSource reads a file into a topic and a FileStreamSink writes the topic to
another file. Once both have committed their offsets, the worker running the source task is killed with
SIGKILL; the other must take over every connector and task, and the output file must end up holding each
line of the input, once, in order.

Both of Connect's rebalance protocols run the same scenario: `sessioned` (the default: incremental
cooperative rebalancing, KIP-415, with signed internal requests, KIP-507) and `eager` (every member gives
up everything at each rebalance, protocol name `default`). The broker serves them with its classic group
coordinator unchanged; what the demo found instead was our admin client reading a `connect` group's member
assignments as the consumer protocol's (kafka-consumer-groups --describe died in a traceback), now refused
as Kafka's DescribeConsumerGroupsHandler refuses it.
"""

from __future__ import annotations

import json
import signal
import struct
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from kafka.clients.admin.admin_client import AdminClient
from kafka.protocol.acl import ResourceType
from kafka.protocol.api_keys import ApiKey
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import REPO, free_port, wait_until
from tests.jvm.jvm import classpath
from tests.wire import WireClient

pytestmark = [pytest.mark.broker, pytest.mark.timeout(300)]

EXAMPLES = REPO / "examples" / "connect"
LOG4J2 = EXAMPLES / "log4j2.properties"
GROUP = "connect-demo"  # worker-N.properties' group.id and topic names
INTERNAL_TOPICS = ("connect-demo-configs", "connect-demo-offsets", "connect-demo-status")
TOPIC = "connect-demo-lines"
# connect.protocol -> the protocol name the workers' JoinGroup carries, the version its metadata starts with
PROTOCOLS = {"sessioned": ("sessioned", 2), "eager": ("default", 0)}


class ConnectWorker:
    """One `ConnectDistributed` JVM, as bin/connect-distributed.sh starts it, and its REST API."""

    def __init__(self, n: int, home: Path, bootstrap: str, protocol: str, jars: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.worker_id = f"127.0.0.1:{self.port}"  # what the status API names the worker by
        self.log_path = home / f"worker-{n}.log"
        config = home / f"worker-{n}.properties"
        overrides = {"bootstrap.servers": bootstrap, "listeners": self.url, "connect.protocol": protocol}
        config.write_text((EXAMPLES / f"worker-{n}.properties").read_text()
                          + "".join(f"{key}={value}\n" for key, value in overrides.items()))
        out = open(home / f"worker-{n}.out", "wb")
        self.process = subprocess.Popen(
            ["java", "-XX:TieredStopAtLevel=1", f"-Dlog4j2.configurationFile={LOG4J2}",
             f"-Dconnect.log.file={self.log_path}", "-cp", jars,
             "org.apache.kafka.connect.cli.ConnectDistributed", str(config)],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        out.close()

    def rest(self, method: str, path: str, body: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read() or b"null")

    def serving(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"worker exited {self.process.returncode}:\n{self.log_tail()}")
        try:
            return self.rest("GET", "/")["version"] == "4.3.1"
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:] if self.log_path.exists() else ""


@pytest.fixture
def workers(tmp_path):
    """start(bootstrap, protocol) -> two workers; every one is stopped after the test."""
    started: list[ConnectWorker] = []
    jars = classpath("connect")

    def start(bootstrap: str, protocol: str) -> list[ConnectWorker]:
        for n in (1, 2):
            started.append(ConnectWorker(n, tmp_path, bootstrap, protocol, jars))
        return started

    yield start
    for worker in started:
        worker.stop()


def describe_group(port: int, group: str):
    """DescribeGroups v5 from the coordinator (the one broker): the group as the broker keeps it."""
    client = WireClient(port)
    try:
        return client.request(ApiKey.DESCRIBE_GROUPS, 5, {"groups": [group],
                                                          "include_authorized_operations": False}).groups[0]
    finally:
        client.close()


def statuses(worker: ConnectWorker) -> dict:
    return {name: c["status"] for name, c in worker.rest("GET", "/connectors?expand=status").items()}


def placement(worker: ConnectWorker) -> set[tuple[str, str, str]]:
    """(what, state, worker id) for each connector and task the cluster runs."""
    result = set()
    for name, status in statuses(worker).items():
        result.add((name, status["connector"]["state"], status["connector"]["worker_id"]))
        result |= {(f"{name}-{t['id']}", t["state"], t["worker_id"]) for t in status["tasks"]}
    return result


def committed_offsets(worker: ConnectWorker, connector: str) -> list[dict]:
    """GET /connectors/NAME/offsets (KIP-875): a source's committed source offsets, a sink's group offsets."""
    return [o["offset"] for o in worker.rest("GET", f"/connectors/{connector}/offsets")["offsets"]]


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_two_workers_carry_every_line_once_across_a_worker_kill(protocol, broker_process, workers, tmp_path):
    broker = broker_process()
    one, two = workers(broker.bootstrap, protocol)
    for worker in (one, two):
        wait_until(worker.serving, timeout=120, message=f"worker {worker.url}'s REST API")

    # The workers' group: protocol type `connect` on the classic group coordinator, both members in.
    protocol_name, metadata_version = PROTOCOLS[protocol]

    def group_stable_with_both():
        group = describe_group(broker.port, GROUP)
        return group if group.group_state == "Stable" and len(group.members) == 2 else None
    group = wait_until(group_stable_with_both, timeout=60, message="both workers in a Stable group")
    assert (group.protocol_type, group.protocol_data) == ("connect", protocol_name)
    for member in group.members:  # ConnectProtocol's metadata: a version, then the worker's URL
        assert struct.unpack(">h", member.member_metadata[:2])[0] == metadata_version
        assert any(w.url.encode() in member.member_metadata for w in (one, two))

    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        # Connect's state is in compacted topics; its configs in one partition, their total order.
        for topic in INTERNAL_TOPICS:
            assert admin.describe_configs(ResourceType.TOPIC, topic)["cleanup.policy"].value == "compact"
        assert len(admin.describe_topics(["connect-demo-configs"])["connect-demo-configs"].partitions) == 1
        # kafka-consumer-groups --describe on it: Kafka's refusal, not the consumer protocol misread.
        with pytest.raises(ValueError, match=r"GroupId connect-demo is not a consumer group \(connect\)\."):
            admin.describe_consumer_groups([GROUP])

    input_file, output_file = tmp_path / "input.txt", tmp_path / "output.txt"
    input_file.write_text("".join(f"line {i}\n" for i in range(1, 101)))
    one.rest("PUT", "/connectors/file-source/config", {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "tasks.max": "1",
        "file": str(input_file), "topic": TOPIC,
        "topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"})
    two.rest("PUT", "/connectors/file-sink/config", {  # another worker: it forwards to the group's leader
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "tasks.max": "1",
        "topics": TOPIC, "file": str(output_file)})

    def output_lines() -> list[str]:
        return output_file.read_text().splitlines() if output_file.exists() else []
    wait_until(lambda: len(output_lines()) >= 100, timeout=60, message="the first 100 lines in output.txt")
    # At least once: kill a worker only once both have committed, or the survivor redoes the uncommitted.
    wait_until(lambda: committed_offsets(one, "file-source") == [{"position": input_file.stat().st_size}],
               timeout=30, message="the source's committed position at the end of input.txt")
    wait_until(lambda: committed_offsets(one, "file-sink") == [{"kafka_offset": 100}], timeout=30,
               message="the sink's committed offset at 100")

    source_worker = statuses(one)["file-source"]["tasks"][0]["worker_id"]
    victim, survivor = (one, two) if source_worker == one.worker_id else (two, one)
    victim.kill()
    with input_file.open("a") as f:
        f.write("".join(f"line {i}\n" for i in range(101, 201)))

    everything_on_survivor = {("file-source", "RUNNING", survivor.worker_id),
                              ("file-source-0", "RUNNING", survivor.worker_id),
                              ("file-sink", "RUNNING", survivor.worker_id),
                              ("file-sink-0", "RUNNING", survivor.worker_id)}
    wait_until(lambda: placement(survivor) == everything_on_survivor, timeout=90,
               message=f"{survivor.worker_id} running every connector and task:\n{survivor.log_tail()}")
    wait_until(lambda: len(output_lines()) >= 200, timeout=60, message="all 200 lines in output.txt")
    assert output_lines() == input_file.read_text().splitlines()

    # The broker's side: the sink's consumer group committed the whole topic, the group has one worker left.
    wait_until(lambda: committed_offsets(survivor, "file-sink") == [{"kafka_offset": 200}], timeout=30,
               message="the sink's committed offset at 200")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        assert admin.list_consumer_group_offsets("connect-file-sink") == {TopicPartition(TOPIC, 0): 200}
    group = describe_group(broker.port, GROUP)
    assert group.group_state == "Stable" and len(group.members) == 1
