"""Acceptance: stop the broker cleanly, start it on the same data dir, and nothing is lost."""

from __future__ import annotations

import signal

from confluent_kafka import Producer

from tests.integration.test_confluent_kafka import consume_all, create_topic


def produce(bootstrap: str, topic: str, values: list[bytes]) -> list[tuple[int, int]]:
    # batch.size well under the 64 KiB segments: Kafka rejects an append larger than a segment.
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 2, "batch.size": 16384})
    acked = []
    for i, value in enumerate(values):
        producer.produce(topic, key=b"%d" % i, value=value,
                         on_delivery=lambda err, msg: acked.append((msg.partition(), msg.offset())))
    assert producer.flush(20) == 0
    return acked


def test_clean_restart_keeps_records_and_offsets(broker_process, tmp_path):
    data = tmp_path / "data"
    first = broker_process(data, {"log.segment.bytes": "65536"})
    create_topic(first.bootstrap, "durable", 2)
    values = [b"before-%d-" % i + b"x" * 100 for i in range(3000)]  # ~170 KB a partition: several segments
    before = produce(first.bootstrap, "durable", values)
    assert first.stop(signal.SIGTERM) == 0, first.output()
    assert "shut down completed" in first.output()

    second = broker_process(data, {"log.segment.bytes": "65536"})
    records = consume_all(second.bootstrap, "durable", 2, 3000)
    assert sorted(m.value() for m in records) == sorted(values)
    segments = list((data / "durable-0").glob("*.log"))
    assert len(segments) > 1, "small segments rolled, and the restart read every one of them"

    ends = {p: max(o for q, o in before if q == p) + 1 for p in (0, 1)}
    after = produce(second.bootstrap, "durable", [b"after-%d" % i for i in range(100)])
    for partition, offset in after:
        assert offset >= ends[partition], "new records continue after the old ones"
    per_partition = {p: sorted(o for q, o in after if q == p) for p in (0, 1)}
    for partition, offsets in per_partition.items():
        if offsets:
            assert offsets == list(range(ends[partition], ends[partition] + len(offsets)))
    second.stop()


def test_config_error_names_the_key(broker_process, tmp_path):
    import subprocess
    import sys

    from tests.helpers import REPO

    for override, key in [("no.such.key=1", "no.such.key"), ("num.io.threads=many", "num.io.threads")]:
        result = subprocess.run(
            [sys.executable, "-m", "kafka", str(REPO / "config" / "server.properties"), "--override",
             override,
             "--override", f"log.dirs={tmp_path / 'unused'}"],
            capture_output=True, timeout=30, cwd=REPO)
        assert result.returncode != 0
        assert f"'{key}'" in result.stderr.decode()


def test_second_ctrl_c_during_shutdown_still_stops_cleanly(broker_process, tmp_path):
    broker = broker_process(tmp_path / "data")
    broker.process.send_signal(signal.SIGINT)
    broker.process.send_signal(signal.SIGINT)
    assert broker.stop(signal.SIGINT, timeout=20) == 0
    assert broker.output().count("shut down completed") == 1
