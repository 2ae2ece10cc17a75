"""Kafka Connect given bad input (issue 42's faults; docs/ecosystem.md#kafka-connect): a connector whose
config Connect refuses, created through the REST API as `curl` would, and the worker afterwards.

One worker of connect-runtime 4.3.1 (test_connect_demo.py's ConnectWorker, from
examples/connect/worker-1.properties) runs beside a broker started as `make run` starts it. Two bad
creations go through `PUT /connectors/NAME/config`: a FileStreamSource without its required `topic`, and a
connector class no plugin provides. Connect validates a config on the worker before it writes anything to
its config topic, so both come back as 400 Bad Request with Connect's own message, no connector is left
behind, and a good FileStreamSource created afterwards runs and carries a file into a topic.
"""

from __future__ import annotations

import json
import urllib.error

import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.helpers import wait_until
from tests.jvm.jvm import classpath
from tests.jvm.test_connect_demo import ConnectWorker, statuses

pytestmark = [pytest.mark.broker, pytest.mark.timeout(180)]

TOPIC = "connect-faults-lines"
FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"


@pytest.fixture
def worker(broker_process, tmp_path):
    broker = broker_process()
    started = ConnectWorker(1, tmp_path, broker.bootstrap, "sessioned", classpath("connect"))
    started.broker = broker
    yield started
    started.stop()


def refused(worker: ConnectWorker, name: str, config: dict) -> tuple[int, dict]:
    """PUT /connectors/NAME/config that Connect must refuse: (HTTP status, the JSON error body)."""
    with pytest.raises(urllib.error.HTTPError) as error:
        worker.rest("PUT", f"/connectors/{name}/config", config)
    return error.value.code, json.loads(error.value.read())


def test_bad_connector_configs_are_refused_and_the_worker_keeps_running(worker, tmp_path):
    wait_until(worker.serving, timeout=120, message=f"worker {worker.url}'s REST API")
    input_file = tmp_path / "input.txt"
    input_file.write_text("".join(f"line {i}\n" for i in range(1, 51)))
    good = {"connector.class": FILE_SOURCE, "tasks.max": "1", "file": str(input_file), "topic": TOPIC,
            "topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"}

    # A FileStreamSource without `topic`: its ConfigDef has no default, validation fails on the worker.
    status, body = refused(worker, "no-topic", {k: v for k, v in good.items() if k != "topic"})
    assert (status, body["error_code"]) == (400, 400)
    assert body["message"] == (
        "Connector configuration is invalid and contains the following 1 error(s):\n"
        'Missing required configuration "topic" which has no default value.\n'
        "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/{connectorType}/config/validate`")

    # A class that no plugin on the worker's path provides: the message lists the ones that are there.
    unknown = {**good, "connector.class": "com.example.NoSuchConnector"}
    status, body = refused(worker, "no-such-class", unknown)
    assert (status, body["error_code"]) == (400, 400)
    assert body["message"].startswith("Failed to find any class that implements Connector and which name "
                                      "matches com.example.NoSuchConnector, available connectors are: ")
    assert f"name='{FILE_SOURCE}'" in body["message"]

    # Nothing of either was kept, and the worker is still up.
    assert worker.serving() and worker.rest("GET", "/connectors") == []

    # A good connector created afterwards runs and moves data.
    worker.rest("PUT", "/connectors/file-source/config", good)

    def task_running() -> bool:
        tasks = statuses(worker).get("file-source", {}).get("tasks", [])
        return [t["state"] for t in tasks] == ["RUNNING"]
    wait_until(task_running, timeout=60, message=f"file-source's task RUNNING:\n{worker.log_tail()}")
    assert read_values(worker.broker.bootstrap, TOPIC, 50) == input_file.read_text().splitlines()


def read_values(bootstrap: str, topic: str, count: int) -> list[str]:
    """The first `count` values of partition 0 of `topic`, waiting for them as they arrive."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "test-reader",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, 0)])
    values: list[str] = []
    try:
        def read_some() -> bool:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                values.append(message.value().decode())
            return len(values) >= count
        wait_until(read_some, timeout=60, interval=0, message=f"{count} records in {topic}")
    finally:
        consumer.close()
    return values
