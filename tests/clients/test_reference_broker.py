"""Our clients against a broker we did not write: the reference broker of ../shared/bench (Tansu).

Only produce, assign-consume and topic creation, as the issue asks. The script pip-installs the
reference broker on first use; without ../shared (a fresh clone) the test is skipped.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess

import pytest

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.consumer import KafkaConsumer
from kafka.clients.producer import KafkaProducer
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import REPO, free_port, unique_topic, wait_until

SCRIPT = REPO.parent / "shared" / "bench" / "reference-broker.sh"


@pytest.fixture
def reference_broker():
    if not SCRIPT.exists():
        pytest.skip(f"the reference broker script {SCRIPT} is not available (it lives outside this "
                    "repository)")
    port = free_port()
    started = subprocess.run(["bash", str(SCRIPT), str(port)], capture_output=True, text=True, timeout=300)
    if started.returncode != 0 or not started.stdout.strip().isdigit():
        pytest.skip(f"the reference broker did not start: {started.stderr.strip()[-300:]}")
    pid = int(started.stdout.strip())

    def listening():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return True
        except OSError:
            return False

    try:
        wait_until(listening, timeout=30, message="the reference broker to listen")
        yield f"127.0.0.1:{port}"
    finally:
        os.kill(pid, signal.SIGTERM)


@pytest.mark.timeout(400)
def test_produce_assign_consume_and_create_topics_on_the_reference_broker(reference_broker):
    topic = unique_topic("ref")
    with AdminClient({"bootstrap.servers": reference_broker}) as admin:
        assert admin.create_topics([NewTopic(topic, 3, 1)]) == {topic: None}
    records = [(f"k{i}".encode(), f"v{i}".encode()) for i in range(3000)]
    with KafkaProducer({"bootstrap.servers": reference_broker, "compression.type": "lz4"}) as producer:
        futures = [producer.send(topic, v, key=k, headers={"i": str(i)}) for i, (k, v) in enumerate(records)]
        producer.flush(60)
    delivered = [f.get(10) for f in futures]
    assert {m.partition for m in delivered} == {0, 1, 2}
    received = []
    with KafkaConsumer({"bootstrap.servers": reference_broker, "auto.offset.reset": "earliest"}) as consumer:
        consumer.assign([TopicPartition(topic, p) for p in range(3)])
        wait_until(lambda: received.extend(consumer.poll(200)) or len(received) >= len(records), timeout=60,
                   message="every record back from the reference broker")
    assert sorted((r.key, r.value) for r in received) == sorted(records)
    by_partition: dict[int, list[int]] = {}
    for r in received:
        by_partition.setdefault(r.partition, []).append(int(dict(r.headers)["i"]))
    assert all(seq == sorted(seq) for seq in by_partition.values())
