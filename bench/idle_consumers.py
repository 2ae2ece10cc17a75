#!/usr/bin/env python3
"""What idle consumers cost the broker: N confluent-kafka consumers long-poll an empty topic
(default fetch.wait.max.ms=500) while we sample the broker's CPU from /proc/<pid>/stat.

    python bench/idle_consumers.py --bootstrap 127.0.0.1:9092 --broker-pid PID [-c 20] [--seconds 10]

With fetches parked in the purgatory, each consumer costs the broker about two requests a second.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
import uuid

from confluent_kafka import OFFSET_END, Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", default="127.0.0.1:9092")
    ap.add_argument("--broker-pid", type=int, required=True)
    ap.add_argument("-c", "--consumers", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--json",
                    help="append the result as one JSON line to this file (bench/ratios.py reads it)")
    a = ap.parse_args()

    topic = "idle-" + uuid.uuid4().hex[:8]
    admin = AdminClient({"bootstrap.servers": a.bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])[topic].result(15)
    stop = threading.Event()

    def poll_forever(consumer: Consumer) -> None:
        while not stop.is_set():
            consumer.poll(0.2)

    consumers = []
    for i in range(a.consumers):
        c = Consumer({"bootstrap.servers": a.bootstrap, "group.id": f"idle-{i}", "enable.auto.commit": False})
        c.assign([TopicPartition(topic, 0, OFFSET_END)])
        consumers.append(c)
    threads = [threading.Thread(target=poll_forever, args=(c,), daemon=True) for c in consumers]
    for t in threads:
        t.start()
    time.sleep(3)  # warm-up: connections made, every consumer in its long-poll loop
    t0, k0 = time.monotonic(), cpu_ticks(a.broker_pid)
    time.sleep(a.seconds)
    t1, k1 = time.monotonic(), cpu_ticks(a.broker_pid)
    stop.set()
    for t in threads:
        t.join(5)
    for c in consumers:
        c.close()
    admin.delete_topics([topic])[topic].result(15)
    cpu = (k1 - k0) / CLK_TCK / (t1 - t0) * 100
    print(f"IDLE consumers={a.consumers} seconds={a.seconds:.0f}: broker_cpu={cpu:.1f}% of one core")
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps(dict(mode="idle", consumers=a.consumers, seconds=a.seconds,
                                    broker_cpu=round(cpu, 2))) + "\n")


if __name__ == "__main__":
    main()
