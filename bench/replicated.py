#!/usr/bin/env python3
"""The shared harness (../shared/bench/bench.py) against a cluster, with replicated topics.

bench.py creates each topic with replication factor 1; this wrapper loads it unchanged and swaps
its create_topic for one that asks for replication factor 3 and min.insync.replicas=2, so an
acks=all run measures replication (the leader waiting for two followers' fetches):

    python bench/replicated.py --harness ../shared/bench/bench.py -- --bootstrap 127.0.0.1:19092 --acks all ...
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time

from confluent_kafka.admin import AdminClient, NewTopic

REPLICATION_FACTOR = 3


def load_harness(path: str):
    spec = importlib.util.spec_from_file_location("bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def create_replicated_topic(bootstrap, name, partitions, timeout=20):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topic = NewTopic(name, num_partitions=partitions, replication_factor=REPLICATION_FACTOR,
                     config={"min.insync.replicas": "2"})
    admin.create_topics([topic])[name].result(timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:  # every partition has a leader and a full ISR
        md = admin.list_topics(name, timeout=5).topics.get(name)
        if md and not md.error and len(md.partitions) == partitions and all(
                p.leader >= 0 and len(p.isrs) == REPLICATION_FACTOR for p in md.partitions.values()):
            return admin
        time.sleep(0.1)
    raise RuntimeError(f"topic {name} not ready")


def wait_for_brokers(bootstrap: str, count: int, timeout: float = 90) -> None:
    """A cluster that has just started: wait until `count` brokers are registered and unfenced."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if len(admin.list_topics(timeout=5).brokers) >= count:
                return
        except Exception:  # not up yet
            pass
        time.sleep(0.5)
    raise RuntimeError(f"fewer than {count} brokers at {bootstrap} after {timeout} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--harness", default="../shared/bench/bench.py")
    ap.add_argument("rest", nargs=argparse.REMAINDER, help="bench.py's own arguments, after --")
    a = ap.parse_args()
    harness = load_harness(a.harness)
    harness.create_topic = create_replicated_topic
    rest = [x for x in a.rest if x != "--"]
    wait_for_brokers(rest[rest.index("--bootstrap") + 1], REPLICATION_FACTOR)
    sys.argv = ["bench.py", *[x for x in a.rest if x != "--"]]
    harness.main()


if __name__ == "__main__":
    main()
