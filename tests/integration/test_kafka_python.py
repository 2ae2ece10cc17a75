"""kafka-python 3.x, whose producer is idempotent by default, round-trips records with this broker.

Before InitProducerId existed here its first send failed with IncompatibleBrokerVersion. kafka-python
installs under the import name `kafka`, like this broker, so `make test` gives it its own virtual
environment (.venv-kafka-python) and the client runs there, in its own process.
"""

from __future__ import annotations

import json
import subprocess

from kafka.protocol.api_keys import ApiKey
from tests.helpers import REPO
from tests.integration.test_confluent_kafka import create_topic
from tests.wire import WireClient

PYTHON = REPO / ".venv-kafka-python" / "bin" / "python"
SCRIPT = REPO / "tests" / "integration" / "kafka_python_roundtrip.py"


def test_kafka_python_default_idempotent_producer_round_trips_records(broker_process, tmp_path):
    assert PYTHON.exists(), f"{PYTHON} is missing: `make test` creates it (kafka-python in its own venv)"
    broker = broker_process(tmp_path / "data")
    topic, count = "kafka-python", 500
    create_topic(broker.bootstrap, topic, 3)
    run = subprocess.run([str(PYTHON), "-I", str(SCRIPT), broker.bootstrap, topic, str(count)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["idempotent"] is True, "kafka-python's default producer is idempotent"
    received = {(p, o): value for p, o, _, value in result["received"]}
    assert len(received) == count
    assert sorted(received.values()) == [f"value-{n:05d}" for n in range(count)]
    assert {tuple(a) for a in result["acked"]} == set(received), "every acknowledged offset holds its record"

    client = WireClient(broker.port)
    try:
        described = client.request(ApiKey.DESCRIBE_PRODUCERS, 0, {"topics": [
            {"name": topic, "partition_indexes": [0, 1, 2]}]})
    finally:
        client.close()
    producers = [s for p in described.topics[0].partitions for s in p.active_producers]
    assert producers and all(s.producer_id >= 0 for s in producers), "the batches carried a producer id"
    broker.stop()
