#!/usr/bin/env python3
"""The shared harness (../shared/bench/bench.py) against a cluster, with replicated topics.

bench.py creates each topic with replication factor 1; this wrapper loads it unchanged and swaps
its create_topic for one that asks for replication factor 3 and min.insync.replicas=2, so an
acks=all run measures replication (the leader waiting for two followers' fetches):

    python bench/replicated.py --harness ../shared/bench/bench.py [--broker-pids P1,P2,P3] \
        -- --bootstrap 127.0.0.1:19092 --acks all ...

With --broker-pids, the broker CPU and resident memory that bench.py reports are those of all the
nodes added up (its sampler reads one process's /proc; this one reads each of theirs): a replicated
write costs the leader and both followers, and which node leads a partition is the controller's choice.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

from confluent_kafka.admin import AdminClient, NewTopic

REPLICATION_FACTOR = 3


def load_harness(path: str):
    spec = importlib.util.spec_from_file_location("bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def summed_sampler(sampler: type, pids: list[int]) -> type:
    """bench.py's ProcSampler over several processes: their CPU ticks and resident memory added up."""
    page = os.sysconf("SC_PAGE_SIZE")

    def ticks(pid: int) -> int:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime

    def rss(pid: int) -> int:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * page

    class ClusterSampler(sampler):
        def ticks(self) -> int:
            return sum(ticks(pid) for pid in pids)

        def rss(self) -> int:
            return sum(rss(pid) for pid in pids)

    return ClusterSampler


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
    ap.add_argument("--broker-pids", default="",
                    help="the nodes' pids, comma-separated: their CPU and RSS added up")
    ap.add_argument("rest", nargs=argparse.REMAINDER, help="bench.py's own arguments, after --")
    a = ap.parse_args()
    harness = load_harness(a.harness)
    harness.create_topic = create_replicated_topic
    if a.broker_pids:
        harness.ProcSampler = summed_sampler(harness.ProcSampler, [int(p) for p in a.broker_pids.split(",")])
    rest = [x for x in a.rest if x != "--"]
    wait_for_brokers(rest[rest.index("--bootstrap") + 1], REPLICATION_FACTOR)
    sys.argv = ["bench.py", *[x for x in a.rest if x != "--"]]
    harness.main()


if __name__ == "__main__":
    main()
