#!/usr/bin/env python3
"""Seed 002's claim, measured: a consumer reading old data that is not in the page cache delays the
other clients of its network thread, and tiered storage (KIP-405) is how Kafka isolates those reads.

Seed 002 (Jun Rao, "Inside the Apache Kafka Broker") ends its fetch journey there: the network thread
sends a fetch's records from the segment file with zero copy (`sendfile`), which is fast while the
bytes are in the page cache; "if you are accessing the old data, the data may need to be retrieved
from disk. This can cause a network thread to be blocked", and every other client on that thread
waits. A read from remote storage instead runs on the RemoteLogManager's reader threads
(`remote.log.reader.threads`) and waits in the purgatory as a DelayedRemoteFetch; the network thread
only sends bytes already in memory.

One broker at a time, with one network thread (`num.network.threads=1`, so that both consumers are on
it), a tailing client and a cold reader:

    tail      a producer sends 500 small records a second; a consumer tails them and times each one
              from send to receipt (end-to-end)
    backlog   another consumer reads a topic of --backlog-mb from offset 0 again and again, while an
              evictor drops its files from the page cache (posix_fadvise(POSIX_FADV_DONTNEED), every
              0.2 s), so every read comes from the disk

Two cases: `local`, the backlog in local segments (a topic without remote storage); `remote`, the
backlog's segments copied to local-directory remote storage and deleted from the broker's disk
(`remote.storage.enable=true`, `local.retention.bytes` of 2 MiB), remote files evicted the same way.
Each case prints the tail's p50/p99 alone and beside the cold reader, the backlog's read rate, and the
network thread's idle ratio (NetworkProcessorAvgIdlePercent) after each phase.

Apache Kafka runs the same two cases with its own LocalTieredStorage, which ships only in kafka-storage's
test jar, served by Maven Central here up to 4.3.1: so Apache Kafka 4.3.1 runs this row (the
`broker-tiered` profile of tests/jvm/pom.xml), not 4.4.0. Its idle ratio is read over JMX with
Kafka's JmxTool.

    PYTHONPATH=. python bench/cold_read.py [--brokers ours,apache] [--backlog-mb 200] [--seconds 20]

prints, for each broker and case,

    COLD_READ ours local: tail p50/p99 ms alone 2.1/4.0, beside the cold reader 3.0/35.2; cold reader
    212 MB/s; network thread idle 0.98 alone, 0.61 beside
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from contextlib import contextmanager
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

ROOT = Path(__file__).resolve().parent.parent
LOCAL_TIERED_STORAGE = "org.apache.kafka.server.log.remote.storage.LocalTieredStorage"
TAIL_RATE = 500  # records a second
SEGMENT_BYTES = 1 << 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(0.2)


def tiered_overrides(remote_dir: Path) -> dict[str, str]:
    """The same broker settings for both brokers: remote storage on, its tasks every second."""
    return {"num.network.threads": "1",
            "remote.log.storage.system.enable": "true",
            "remote.log.storage.manager.class.name": LOCAL_TIERED_STORAGE,
            "remote.log.storage.manager.impl.prefix": "rsm.config.",
            "rsm.config.dir": str(remote_dir),
            "remote.log.metadata.manager.listener.name": "PLAINTEXT",
            "rlmm.config.remote.log.metadata.topic.replication.factor": "1",
            "remote.log.manager.task.interval.ms": "1000",
            "log.retention.check.interval.ms": "1000",
            "log.segment.delete.delay.ms": "0"}


class Broker:
    name: str
    bootstrap: str
    log_dir: Path
    remote_dir: Path

    def idle_ratio(self) -> float:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError


class OurBroker(Broker):
    """`python -m kafka config/server.properties` in a process of its own, as `make bench` starts it."""

    name = "ours"

    def __init__(self, home: Path) -> None:
        self.log_dir, self.remote_dir = home / "data", home / "remote"
        self.remote_dir.mkdir(parents=True)
        port, self.metrics_port = free_port(), free_port()
        self.bootstrap = f"127.0.0.1:{port}"
        overrides = {"listeners": f"PLAINTEXT://{self.bootstrap}", "advertised.listeners": f"PLAINTEXT://{self.bootstrap}",
                     "log.dirs": str(self.log_dir), "metrics.listener": f"http://127.0.0.1:{self.metrics_port}",
                     **tiered_overrides(self.remote_dir)}
        args = [a for key, value in overrides.items() for a in ("--override", f"{key}={value}")]
        self.log = open(home / "broker.log", "wb")
        self.process = subprocess.Popen([sys.executable, "-m", "kafka", "config/server.properties", *args],
                                        cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        wait_for(lambda: serves(self.bootstrap), 60, "our broker to serve")

    def idle_ratio(self) -> float:
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        text = urllib.request.urlopen(url, timeout=10).read().decode()
        match = re.search(r"^kafka_network_socketserver_networkprocessoravgidlepercent\S* (\S+)$", text, re.M)
        return float(match.group(1)) if match else float("nan")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(60)
        self.log.close()


class ApacheBroker(Broker):
    """Apache Kafka 4.3.1 with LocalTieredStorage (tests/jvm/apache_kafka.py), JMX on a local port."""

    name = "apache"

    def __init__(self, home: Path) -> None:
        from tests.jvm import resolve
        from tests.jvm.apache_kafka import ApacheKafka

        self.remote_dir = home / "remote"
        self.remote_dir.mkdir(parents=True)
        self.jmx_port = free_port()
        jmx = (f"-Dcom.sun.management.jmxremote.port={self.jmx_port}",
               f"-Dcom.sun.management.jmxremote.rmi.port={self.jmx_port}",
               "-Dcom.sun.management.jmxremote.authenticate=false",
               "-Dcom.sun.management.jmxremote.ssl=false",
               "-Djava.rmi.server.hostname=127.0.0.1")
        self.kafka = ApacheKafka(home / "apache", 1, overrides=tiered_overrides(self.remote_dir),
                                 profile="broker-tiered", jvm_options=jmx).start()
        self.bootstrap = self.kafka.bootstrap
        self.log_dir = self.kafka.nodes[0].home / "data"
        self.tools = resolve.classpath("tools")

    def idle_ratio(self) -> float:
        done = subprocess.run(
            ["java", "-cp", self.tools, "org.apache.kafka.tools.JmxTool", "--one-time", "true",
             "--jmx-url", f"service:jmx:rmi:///jndi/rmi://127.0.0.1:{self.jmx_port}/jmxrmi",
             "--object-name", "kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent",
             "--report-format", "properties"], capture_output=True, text=True, timeout=60)
        match = re.search(r"NetworkProcessorAvgIdlePercent:Value=(\S+)", done.stdout)
        return float(match.group(1)) if match else float("nan")

    def stop(self) -> None:
        self.kafka.stop()


def serves(bootstrap: str) -> bool:
    try:
        AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=1)
        return True
    except Exception:  # noqa: BLE001  (not up yet: any client error)
        return False


def create_topic(bootstrap: str, name: str, configs: dict[str, str]) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, 1, 1, config=configs)])[name].result(30)


def fill(bootstrap: str, topic: str, megabytes: int) -> int:
    """megabytes of 1 KiB records (random bytes: nothing compresses); returns how many."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 1 << 20, "acks": 1,
                         "queue.buffering.max.kbytes": 65536})
    count, value = megabytes * 1024, os.urandom(1024)
    for i in range(count):
        while True:
            try:
                producer.produce(topic, value[i % 512:] + value[:i % 512])
                break
            except BufferError:
                producer.poll(0.05)
        producer.poll(0)
    if producer.flush(300):
        raise RuntimeError("the backlog was not all acknowledged")
    return count


def local_segments(log_dir: Path, topic: str) -> int:
    return len(list((log_dir / f"{topic}-0").glob("*.log")))


def evict(paths: list[Path]) -> None:
    """Drop every file under paths from the page cache (they are clean: written, flushed by sync)."""
    for root in paths:
        for path in root.rglob("*"):
            try:
                fd = os.open(path, os.O_RDONLY)
            except (IsADirectoryError, FileNotFoundError, PermissionError):
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


class BackgroundThreads:
    """Threads that run from `with` to its end; each watches self.stop."""

    threads: list[threading.Thread]
    stop: threading.Event

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)


class Tail(BackgroundThreads):
    """A producer at TAIL_RATE records a second and a consumer timing each from send to receipt."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.bootstrap, self.topic = bootstrap, topic
        self.latencies: list[float] = []
        self.received = 0
        self.recording = False
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._produce, daemon=True),
                        threading.Thread(target=self._consume, daemon=True)]

    @contextmanager
    def recorded(self):
        self.latencies = []
        self.recording = True
        yield
        self.recording = False

    def _produce(self) -> None:
        producer = Producer({"bootstrap.servers": self.bootstrap, "linger.ms": 0, "acks": 1})
        started, sent = time.monotonic(), 0
        while not self.stop.is_set():
            if sent < (time.monotonic() - started) * TAIL_RATE:
                producer.produce(self.topic, struct.pack(">d", time.time()))
                sent += 1
            producer.poll(0.0005)
        producer.flush(10)

    def _consume(self) -> None:
        consumer = Consumer({"bootstrap.servers": self.bootstrap, "group.id": f"tail-{uuid.uuid4().hex[:6]}",
                             "enable.auto.commit": False, "auto.offset.reset": "latest"})
        consumer.assign([TopicPartition(self.topic, 0, -1)])  # OFFSET_END
        while not self.stop.is_set():
            message = consumer.poll(0.1)
            if message is None or message.error():
                continue
            self.received += 1
            if self.recording:
                self.latencies.append((time.time() - struct.unpack(">d", message.value())[0]) * 1000)
        consumer.close()


class ColdReader(BackgroundThreads):
    """Reads the backlog from offset 0 to its end, again and again, while an evictor keeps it cold."""

    def __init__(self, bootstrap: str, topic: str, count: int, cold_paths: list[Path]) -> None:
        self.bootstrap, self.topic, self.count, self.cold_paths = bootstrap, topic, count, cold_paths
        self.bytes_read = 0
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._read, daemon=True),
                        threading.Thread(target=self._evict, daemon=True)]

    def __enter__(self) -> ColdReader:
        self.started = time.monotonic()
        return super().__enter__()

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        self.elapsed = time.monotonic() - self.started

    def _read(self) -> None:
        consumer = Consumer({"bootstrap.servers": self.bootstrap, "group.id": f"cold-{uuid.uuid4().hex[:6]}",
                             "enable.auto.commit": False, "fetch.max.bytes": 52428800})
        while not self.stop.is_set():
            consumer.assign([TopicPartition(self.topic, 0, 0)])
            seen = 0
            while seen < self.count and not self.stop.is_set():
                message = consumer.poll(0.5)
                if message is not None and not message.error():
                    seen += 1
                    self.bytes_read += len(message.value())
        consumer.close()

    def _evict(self) -> None:
        while not self.stop.wait(0.2):
            evict(self.cold_paths)


def percentiles(values: list[float]) -> str:
    if len(values) < 2:
        return "n/a"
    q = statistics.quantiles(values, n=100)
    return f"{q[49]:.1f}/{q[98]:.1f}"


def measure_case(broker: Broker, case: str, backlog_mb: int, seconds: float) -> str:
    topic, tail_topic = f"cold-{case}-{uuid.uuid4().hex[:6]}", f"tail-{case}-{uuid.uuid4().hex[:6]}"
    configs = {"segment.bytes": str(SEGMENT_BYTES)}
    if case == "remote":
        configs.update({"remote.storage.enable": "true", "local.retention.bytes": str(2 * SEGMENT_BYTES)})
    create_topic(broker.bootstrap, topic, configs)
    create_topic(broker.bootstrap, tail_topic, {})
    count = fill(broker.bootstrap, topic, backlog_mb)
    if case == "remote":
        wait_for(lambda: local_segments(broker.log_dir, topic) <= 4, 600,
                 f"{topic}'s early segments to be copied to remote storage and deleted locally")
        cold_paths = [broker.remote_dir, broker.log_dir / f"{topic}-0"]
    else:
        cold_paths = [broker.log_dir / f"{topic}-0"]
    os.sync()
    with Tail(broker.bootstrap, tail_topic) as tail:
        # warmed up: the consumer has its partition and has kept up for two seconds of records
        wait_for(lambda: tail.received >= 2 * TAIL_RATE, 60, "the tail consumer to receive records")
        time.sleep(seconds)  # and once more, not recorded: a JVM compiles the paths the tail takes
        with tail.recorded():
            time.sleep(seconds)
        alone, idle_alone = tail.latencies, broker.idle_ratio()
        with ColdReader(broker.bootstrap, topic, count, cold_paths) as reader, tail.recorded():
            time.sleep(seconds)
            idle_beside = broker.idle_ratio()
        beside = tail.latencies
    rate = reader.bytes_read / reader.elapsed / 1e6
    return (f"COLD_READ {broker.name} {case}: tail p50/p99 ms alone {percentiles(alone)}, beside the cold "
            f"reader {percentiles(beside)}; cold reader {rate:.0f} MB/s; network thread idle "
            f"{idle_alone:.2f} alone, {idle_beside:.2f} beside")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brokers", default="ours,apache", help="ours, apache, or both (comma-separated)")
    parser.add_argument("--cases", default="local,remote")
    parser.add_argument("--backlog-mb", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each measured phase")
    args = parser.parse_args()
    kinds = {"ours": OurBroker, "apache": ApacheBroker}
    for name in args.brokers.split(","):
        with tempfile.TemporaryDirectory(prefix="kafka-cold-read-") as home:
            broker = kinds[name](Path(home))
            try:
                for case in args.cases.split(","):
                    print(measure_case(broker, case, args.backlog_mb, args.seconds), flush=True)
            finally:
                broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
