#!/usr/bin/env python3
"""Issue 27's hostile CreateTopics against the descriptor limit: what the broker does with more
partitions than `ulimit -n` allows.

One broker (one node, RF 1) runs under `prlimit --nofile=LIMIT:LIMIT`. A topic `other` gets a
record first; then one CreateTopics asks for PARTITIONS partitions. After SETTLE seconds the script
reports the descriptors the broker holds (/proc/<pid>/fd), the size of its log, whether a new
client is served (Metadata, then a produce to and a fetch from `other`), then stops the broker and
starts it again under the same limit and asks the same of it.

    python bench/descriptor_limit.py [--limit 4096] [--partitions 7000] [--settle 60]

docs/storage.md, "File descriptors", gives the figures before and after lazy indexes.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(data: Path, port: int, limit: int, log_path: Path) -> subprocess.Popen:
    bootstrap = f"127.0.0.1:{port}"
    args = ["prlimit", f"--nofile={limit}:{limit}", sys.executable, "-m", "kafka",
            str(REPO / "config" / "server.properties"),
            "--override", f"listeners=PLAINTEXT://{bootstrap}", "--override",
            f"advertised.listeners=PLAINTEXT://{bootstrap}",
            "--override", f"log.dirs={data}", "--override", "metrics.listener=http://127.0.0.1:0"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(args, stdout=open(log_path, "ab"), stderr=subprocess.STDOUT, cwd=REPO, env=env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return process
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process
        except OSError:
            time.sleep(0.2)
    return process


def descriptors(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def serves_a_new_client(bootstrap: str, timeout: float = 20.0) -> str:
    """'yes' if a new client gets metadata, produces to `other` and reads it back, else what failed."""
    try:
        admin = AdminClient({"bootstrap.servers": bootstrap})
        admin.list_topics(timeout=timeout)
    except Exception as e:  # noqa: BLE001 - a figure, not a test: say what happened
        return f"no metadata ({e})"
    producer = Producer({"bootstrap.servers": bootstrap, "message.timeout.ms": int(timeout * 1000),
                         "log_level": 0})
    delivered = []
    producer.produce("other", b"after", on_delivery=lambda err, msg: delivered.append(err))
    producer.flush(timeout)
    if not delivered or delivered[0] is not None:
        return f"produce failed ({delivered})"
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "g", "enable.auto.commit": False})
    consumer.assign([TopicPartition("other", 0, 0)])
    deadline = time.monotonic() + timeout
    seen = 0
    while time.monotonic() < deadline and seen < 2:
        msg = consumer.poll(1.0)
        if msg is not None and not msg.error():
            seen += 1
    consumer.close()
    return "yes" if seen >= 2 else f"read {seen} of 2+ records of other"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=4096)
    parser.add_argument("--partitions", type=int, default=7000)
    parser.add_argument("--settle", type=float, default=60)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fdlimit-"))
    data, log_path, port = work / "data", work / "broker.log", free_port()
    bootstrap = f"127.0.0.1:{port}"
    process = start(data, port, args.limit, log_path)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("other", 1, 1)])["other"].result(30)
    producer = Producer({"bootstrap.servers": bootstrap})
    producer.produce("other", b"before")
    producer.flush(30)
    print(f"idle: {descriptors(process.pid)} descriptors")
    started = time.monotonic()
    future = admin.create_topics([NewTopic("wide", args.partitions, 1)], request_timeout=120)["wide"]
    try:
        future.result(120)
        answer = "success"
    except Exception as e:  # noqa: BLE001
        answer = f"error: {e}"
    print(f"CreateTopics of {args.partitions} partitions answered {answer} in "
          f"{time.monotonic() - started:.1f} s")
    time.sleep(args.settle)
    print(f"after {args.settle:.0f} s: {descriptors(process.pid)} descriptors, log "
          f"{log_path.stat().st_size / 1e6:.1f} MB, "
          f"alive={process.poll() is None}, CPU {cpu_seconds(process.pid):.1f} s")
    print(f"new client served: {serves_a_new_client(bootstrap)}")
    partition_dirs = sum(1 for p in data.iterdir() if p.name.startswith("wide-"))
    print(f"partition directories of wide: {partition_dirs}")
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    size_before_restart = log_path.stat().st_size
    process = start(data, port, args.limit, log_path)
    time.sleep(5)
    alive = process.poll() is None
    print(f"restart under the same limit: alive={alive}, exit={process.returncode}, "
          f"{descriptors(process.pid) if alive else '-'} descriptors, "
          f"new client served: {serves_a_new_client(bootstrap) if alive else 'no'}")
    if alive:
        process.send_signal(signal.SIGTERM)
        process.wait(60)
    print(f"log: {log_path} ({size_before_restart / 1e6:.1f} MB before the restart, "
          f"{log_path.stat().st_size / 1e6:.1f} MB in all)")


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return -1.0


if __name__ == "__main__":
    main()
