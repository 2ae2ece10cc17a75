"""Acceptance for the commit log on disk (issue 4): segments with three files each, kafka-dump-log,
fetch from anywhere, ListOffsets by time, torn tails, rebuilt indexes, retention on a moved clock,
DeleteRecords, topic configs and compaction -- all through real clients against a real broker."""

from __future__ import annotations

import signal
import subprocess
import sys
import time as _time

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ConfigSource

from kafka.server.kafka_config import KafkaConfig
from kafka.server.kafka_server import KafkaServer
from kafka.utils.time import Time
from tests.helpers import REPO, unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic

DUMP_LOG = [sys.executable, "-m", "kafka.tools.dump_log_segments"]


class MovableWallClock(Time):
    """Record time (milliseconds) can be moved forward; deadlines (hi_res_clock_ms) stay real, so
    consumers' long polls and the scheduler's ticks behave as in production."""

    def __init__(self) -> None:
        self.offset_ms = 0

    def milliseconds(self) -> int:
        return super().milliseconds() + self.offset_ms

    def advance(self, ms: int) -> None:
        self.offset_ms += ms


@pytest.fixture
def clocked_broker(tmp_path):
    started = []

    def start(overrides: dict[str, str]):
        clock = MovableWallClock()
        props = {"node.id": "1", "listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": str(tmp_path / "data"),
                 "num.network.threads": "1", "num.io.threads": "2",
                 # never the fixed 9404 another broker holds
                 "metrics.listener": "http://127.0.0.1:0", **overrides}
        server = KafkaServer(KafkaConfig(props), time=clock)
        server.startup()
        started.append(server)
        return server, clock, f"127.0.0.1:{server.bound_port()}"

    yield start
    for server in started:
        server.shutdown()


def produce(bootstrap: str, topic: str, records, **config) -> dict[bytes | None, int]:
    """Produce (key, value[, timestamp]) tuples with acks=all; returns value -> offset."""
    # batch.size well under the small test segments: Kafka refuses an append larger than a segment.
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5, "batch.size": 8192,
                         **config})
    offsets: dict = {}
    errors = []

    def on_delivery(err, msg):
        if err is not None:
            errors.append(err)
        else:
            offsets[(msg.key(), msg.value())] = msg.offset()

    for record in records:
        key, value, *ts = record
        producer.produce(topic, key=key, value=value, timestamp=ts[0] if ts else 0, on_delivery=on_delivery)
        producer.poll(0)
    assert producer.flush(30) == 0 and not errors, errors
    return offsets


def read_from(bootstrap: str, topic: str, offset: int, count: int, reset: str = "earliest",
              timeout: float = 30):
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": unique_topic("g"),
                         "enable.auto.commit": False,
                         "auto.offset.reset": reset, "enable.partition.eof": True})
    consumer.assign([TopicPartition(topic, 0, offset)])
    messages, errors = [], []

    def done():
        for msg in consumer.consume(num_messages=1000, timeout=0.2):
            if msg.error() is None:
                messages.append(msg)
            elif msg.error().code() == KafkaError._PARTITION_EOF:
                return True
            else:
                errors.append(msg.error())
                return True
        return len(messages) >= count

    try:
        wait_until(done, timeout, f"{count} records from offset {offset}")
    finally:
        consumer.close()
    return messages, errors


def dump_log(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*DUMP_LOG, *args], capture_output=True, text=True, cwd=REPO, timeout=60)


def test_small_segments_have_three_files_and_serve_any_offset(broker):
    topic = unique_topic("seg")
    create_topic(broker.bootstrap, topic, 1, {"segment.bytes": str(1024 * 1024)})
    t0 = int(_time.time() * 1000) - 100_000
    values = [(b"k%d" % i, b"%06d-" % i + b"x" * 1000, t0 + i * 10) for i in range(3200)]
    produce(broker.bootstrap, topic, values, **{"batch.size": 65536})

    directory = broker.data_dir / f"{topic}-0"
    logs = sorted(directory.glob("*.log"))
    assert len(logs) >= 3, "3.3 MB in 1 MiB segments"
    for segment in logs:
        for suffix in (".index", ".timeindex"):
            assert segment.with_suffix(suffix).exists(), f"{segment.name} lacks its {suffix}"

    second = logs[1]
    dumped = dump_log("--files", str(second))
    assert dumped.returncode == 0, dumped.stderr
    lines = [line for line in dumped.stdout.splitlines() if line.startswith("baseOffset:")]
    assert lines and all("isvalid: true" in line and "compresscodec: none" in line for line in lines)
    assert f"Log starting offset: {int(second.stem)}" in dumped.stdout
    assert lines[0].startswith(f"baseOffset: {int(second.stem)} ")
    index = dump_log("--files", f"{second.with_suffix('.index')},{second.with_suffix('.timeindex')}")
    assert index.returncode == 0, index.stderr
    assert "offset: " in index.stdout and "position: " in index.stdout and "timestamp: " in index.stdout
    with_data = dump_log("--files", str(logs[0]), "--print-data-log")
    assert "| offset: 0 CreateTime: " in with_data.stdout
    assert "key: k0 payload: 000000-xxx" in with_data.stdout

    # A batch holding several records: fetch from its middle, and from inside the second segment.
    batch = next(line for line in lines if " count: 1 " not in line)
    base = int(batch.split()[1])
    for start in (base + 1, int(second.stem) + 7, 3199):
        messages, errors = read_from(broker.bootstrap, topic, start, 1)
        assert not errors and messages[0].offset() == start
        assert messages[0].value().startswith(b"%06d-" % start)

    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": unique_topic("g")})
    try:
        for wanted in (0, 1234, 2500, 3199):
            found = consumer.offsets_for_times([TopicPartition(topic, 0, t0 + wanted * 10 - 5)], timeout=10)
            assert found[0].offset == wanted, f"first record at or after time of record {wanted}"
        assert consumer.offsets_for_times([TopicPartition(topic, 0, t0 + 10**9)], timeout=10)[0].offset == -1
        assert consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10) == (0, 3200)
    finally:
        consumer.close()


def test_torn_tail_is_cut_and_a_missing_index_rebuilt(broker_process, tmp_path):
    data = tmp_path / "data"
    first = broker_process(data, {"log.segment.bytes": "65536"})
    topic = "torn"
    create_topic(first.bootstrap, topic, 1)
    acked = produce(first.bootstrap, topic, [(b"k", b"v%d" % i + b"y" * 200) for i in range(1000)])
    first.stop(signal.SIGKILL)

    active = sorted((data / f"{topic}-0").glob("*.log"))[-1]
    whole = active.read_bytes()
    with open(active, "ab") as file:
        file.write(whole[:40])  # half a batch: a header promising bytes that never came
        file.write(b"\x00garbage" * 7)
    second = broker_process(data, {"log.segment.bytes": "65536"})
    assert active.stat().st_size == len(whole), "cut back to the last valid batch"
    more = produce(second.bootstrap, topic, [(b"k", b"after-%d" % i) for i in range(10)])
    assert sorted(more.values()) == list(range(1000, 1010)), "offsets continue where the valid log ended"
    second.stop(signal.SIGTERM)

    doomed = sorted((data / f"{topic}-0").glob("*.index"))[0]
    doomed.unlink()
    third = broker_process(data, {"log.segment.bytes": "65536"})
    assert doomed.exists() and doomed.stat().st_size > 0, "the index was rebuilt from the .log"
    assert "rebuilding index" in third.output()
    checked = dump_log("--files", str(doomed), "--index-sanity-check")
    assert checked.returncode == 0 and "passed sanity check" in checked.stdout
    messages, errors = read_from(third.bootstrap, topic, OFFSET_BEGINNING, 1010)
    assert not errors
    assert [m.offset() for m in messages] == list(range(1010))
    assert {(b"k", m.value()): m.offset() for m in messages[:1000]} == acked


def test_retention_on_a_moved_clock_and_delete_records(clocked_broker):
    server, clock, bootstrap = clocked_broker({"log.retention.check.interval.ms": "50"})
    topic = unique_topic("ret")
    create_topic(bootstrap, topic, 1, {"segment.bytes": "20000", "retention.ms": "3600000"})
    produce(bootstrap, topic, [(None, b"r%04d" % i + b"z" * 300) for i in range(400)])
    log = server.log_manager.get_log(topic, 0)
    before = log.num_segments
    assert before > 3
    active_base = log.active_segment.base_offset

    clock.advance(2 * 3600 * 1000)  # every record is now two hours old
    wait_until(lambda: log.log_start_offset == active_base, message="retention to delete old segments")
    assert log.num_segments == 1, "everything but the active segment went"
    assert len(list(server.log_manager.get_log(topic, 0).segments)) == 1

    # Below the log start offset: OFFSET_OUT_OF_RANGE, and the consumer resets as it is told to.
    messages, errors = read_from(bootstrap, topic, 0, 1, reset="earliest")
    assert messages[0].offset() == active_base
    messages, errors = read_from(bootstrap, topic, 0, 1, reset="error")
    assert errors and not messages
    assert "out of range" in str(errors[0]).lower() or errors[0].code() == KafkaError.OFFSET_OUT_OF_RANGE

    admin = AdminClient({"bootstrap.servers": bootstrap})
    result = admin.delete_records([TopicPartition(topic, 0, 398)])
    assert next(iter(result.values())).result(15).low_watermark == 398
    messages, _ = read_from(bootstrap, topic, OFFSET_BEGINNING, 2)
    assert [m.offset() for m in messages] == [398, 399]
    too_far = admin.delete_records([TopicPartition(topic, 0, 5000)])
    with pytest.raises(Exception, match="OFFSET_OUT_OF_RANGE|out of range"):
        next(iter(too_far.values())).result(15)


def test_topic_configs_described_and_altered(clocked_broker):
    server, _, bootstrap = clocked_broker({"log.retention.hours": "24"})
    topic = unique_topic("cfg")
    create_topic(bootstrap, topic, 1, {"segment.bytes": "123456"})
    admin = AdminClient({"bootstrap.servers": bootstrap})
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    described = admin.describe_configs([resource])[resource].result(15)
    assert described["segment.bytes"].value == "123456"
    assert described["segment.bytes"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert described["index.interval.bytes"].source == ConfigSource.DEFAULT_CONFIG.value
    assert described["retention.ms"].value == str(24 * 3600 * 1000)

    change = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[
        ConfigEntry("retention.ms", "60000", incremental_operation=AlterConfigOpType.SET),
        ConfigEntry("segment.bytes", None, incremental_operation=AlterConfigOpType.DELETE),
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND)])
    admin.incremental_alter_configs([change])[change].result(15)
    described = admin.describe_configs([resource])[resource].result(15)
    assert described["retention.ms"].value == "60000"
    assert described["cleanup.policy"].value == "delete,compact"
    live = server.log_manager.get_log(topic, 0).config
    assert (live.retention_ms, live.segment_bytes, live.compact) == (60000, 1073741824, True)

    bad = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[
        ConfigEntry("retention.ms", "soon", incremental_operation=AlterConfigOpType.SET)])
    with pytest.raises(Exception, match="retention.ms"):
        admin.incremental_alter_configs([bad])[bad].result(15)
    assert server.log_manager.get_log(topic, 0).config.retention_ms == 60000, "a bad change changes nothing"

    broker = ConfigResource(ConfigResource.Type.BROKER, "1")
    broker_configs = admin.describe_configs([broker])[broker].result(15)
    assert broker_configs["log.retention.hours"].value == "24"


def test_compaction_keeps_the_latest_value_per_key(clocked_broker):
    server, clock, bootstrap = clocked_broker({"log.cleaner.backoff.ms": "50"})
    topic = unique_topic("compact")
    create_topic(bootstrap, topic, 1, {"cleanup.policy": "compact", "segment.bytes": "65536",
                                       "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "60000"})
    records = [(b"key-%02d" % (i % 100), b"value-%05d" % i) for i in range(10_000)]
    tombstones = [(b"key-%02d" % k, None) for k in range(0, 100, 10)]
    offsets = produce(bootstrap, topic, records + tombstones)
    log = server.log_manager.get_log(topic, 0)
    log.roll()  # make everything written so far inactive, hence cleanable
    expected = {key: (value, offsets[(key, value)]) for key, value in records + tombstones}
    server.log_cleaner.wakeup()

    def compacted(count: int):
        messages, errors = read_from(bootstrap, topic, OFFSET_BEGINNING, 10_010, timeout=10)
        assert not errors
        return messages if len(messages) == count else None

    messages = wait_until(lambda: compacted(100), 30, "the cleaner to keep one record per key")
    assert {m.key(): (m.value(), m.offset()) for m in messages} == expected, "latest values, original offsets"
    assert [m.offset() for m in messages] == sorted(m.offset() for m in messages)
    assert sum(m.value() is None for m in messages) == 10, "tombstones stay for delete.retention.ms"

    clock.advance(60_001)
    server.log_cleaner.wakeup()
    messages = wait_until(lambda: compacted(90), 30, "tombstones to go after delete.retention.ms")
    assert {m.key(): (m.value(), m.offset()) for m in messages} == {
        key: found for key, found in expected.items() if found[0] is not None}
    assert log.log_end_offset == 10_010, "compaction never changes offsets"
