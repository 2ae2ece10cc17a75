"""The tables at the end of `make bench` (bench/ratios.py): a column per broker, Apache Kafka's among
them, and each pair's ratios; and bench/replicated.py's sampler that adds up three nodes' /proc.
The result lines have the shape bench.py and bench/idle_consumers.py write with --json."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO

pytestmark = pytest.mark.fast

sys.path.insert(0, str(REPO / "bench"))
from replicated import summed_sampler  # noqa: E402  (bench/ is scripts, not a package)

THROUGHPUT = re.compile(r"throughput ([\d.]+), CPU/msg ([\d.]+)")
BROKER_CPU = re.compile(r"broker CPU ([\d.]+)")


def phase(msgs_s: int, broker_cpu: float, rss_peak: float) -> dict:
    return dict(msgs_s=msgs_s, broker_cpu_avg=broker_cpu, client_cpu=100.0, broker_rss_peak_mb=rss_peak)


def write(results: Path, name: str, *lines: dict) -> None:
    with open(results / f"{name}.jsonl", "a") as f:
        f.writelines(json.dumps(line) + "\n" for line in lines)


def throughput(msgs_s: int, broker_cpu: float, rss_peak: float, after_delete: float) -> dict:
    return dict(produce=phase(msgs_s, broker_cpu, rss_peak), consume=phase(msgs_s, broker_cpu, rss_peak),
                broker_rss_after_delete_mb=after_delete)


def latency(broker_cpu: float, rss_peak: float) -> dict:
    return dict(mode="latency", ack_p50_ms=4.0, e2e_p50_ms=3.5, broker_cpu_avg=broker_cpu,
                broker_rss_peak_mb=rss_peak)


def sitting(results: Path, brokers: dict[str, tuple[int, float, float]]) -> None:
    """One sitting: for each broker (msg/s, broker CPU %, RSS MB) a throughput run, a latency run,
    the idle consumers and its memory; the three-node runs for the brokers that have a cluster."""
    for name, (msgs_s, cpu, rss) in brokers.items():
        write(results, f"{name}-1-1KiB-1p", throughput(msgs_s, cpu, rss, rss - 1))
        write(results, f"{name}-4-1000-msg-per-s", latency(cpu / 10, rss))
        write(results, f"{name}-8-20-idle-consumers", dict(mode="idle", consumers=20, broker_cpu=cpu / 50))
        write(results, f"{name}-memory", {"idle_start_mb": rss - 10}, {"end_mb": rss - 1})
        if name != "reference":
            write(results, f"{name}-rf3-1-1KiB-acks-all", throughput(msgs_s // 4, cpu * 2, rss * 3, rss * 3))


def ratios(results: Path) -> str:
    done = subprocess.run([sys.executable, "bench/ratios.py", str(results)], cwd=REPO, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def row(out: str, table: int, workload: str) -> str:
    """The line of `workload` in the first (0) or second (1) table."""
    part = out.split("\n== ")[table]
    return next(line for line in part.splitlines() if line.startswith(workload + " "))


def test_a_column_for_apache_kafka_and_each_pairs_ratios(tmp_path):
    sitting(tmp_path, {"ours": (400_000, 40.0, 50.0), "reference": (300_000, 90.0, 200.0),
                       "apache": (200_000, 20.0, 500.0)})
    out = ratios(tmp_path)
    header = out.splitlines()[1]
    assert header.split("  ")[0] == "workload" and header.index("reference") < header.index("Apache Kafka")
    # 400k msg/s at 40% of a core is 1.00 µs of broker CPU a message; 200k at 20%, 1.00 too.
    assert "400,000 msg/s, 1.00 µs/msg" in row(out, 0, "1-1KiB-1p produce")
    assert "200,000 msg/s, 1.00 µs/msg" in row(out, 0, "1-1KiB-1p produce")
    ratios_header = out.split("\n== ")[1].splitlines()[1]
    assert ratios_header.split()[1:] == ["this", "broker", "/", "reference", "this", "broker", "/", "Apache",
                                         "Kafka", "reference", "/", "Apache", "Kafka"]
    # this broker / reference, this broker / Apache Kafka, reference / Apache Kafka
    assert THROUGHPUT.findall(row(out, 1, "1-1KiB-1p produce")) == [("1.33", "3.00"), ("2.00", "1.00"),
                                                                    ("1.50", "0.33")]
    assert BROKER_CPU.findall(row(out, 1, "4-1000-msg-per-s")) == ["0.44", "2.00", "4.50"]
    assert BROKER_CPU.findall(row(out, 1, "8-20-idle-consumers")) == ["0.44", "2.00", "4.50"]
    assert "idle 40.0 / peak 50 / after delete 49-49 / end 49.0 MB" in row(out, 0, "resident memory")
    assert re.findall(r"peak RSS ([\d.]+)", row(out, 1, "resident memory")) == ["0.25", "0.10", "0.40"]


def test_the_three_node_runs_come_last_and_have_no_reference(tmp_path):
    sitting(tmp_path, {"ours": (400_000, 40.0, 50.0), "reference": (300_000, 90.0, 200.0),
                       "apache": (200_000, 20.0, 500.0)})
    out = ratios(tmp_path)
    medians = [line.split("  ")[0] for line in out.split("\n== ")[0].splitlines()[2:]]
    assert medians == ["1-1KiB-1p produce", "1-1KiB-1p consume", "4-1000-msg-per-s", "8-20-idle-consumers",
                       "rf3-1-1KiB-acks-all produce", "rf3-1-1KiB-acks-all consume", "resident memory"]
    cluster = row(out, 1, "rf3-1-1KiB-acks-all produce")
    assert cluster.split()[2:] == ["-", "throughput", "2.00,", "CPU/msg", "1.00", "-"]


def test_without_apache_kafka_the_tables_have_no_column_for_it(tmp_path):
    sitting(tmp_path, {"ours": (400_000, 40.0, 50.0), "reference": (300_000, 90.0, 200.0)})
    out = ratios(tmp_path)
    assert "Apache" not in out.split("\n== ")[0] and "Apache Kafka /" not in out
    assert row(out, 1, "1-1KiB-1p produce").endswith("throughput 1.33, CPU/msg 3.00")


def test_the_cluster_sampler_adds_up_every_nodes_cpu_and_memory():
    class Sampler:  # bench.py's ProcSampler as far as the subclass needs it
        def __init__(self, pid, interval=0.2):
            self.pid = pid

    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        pids = [os.getpid(), child.pid]
        sampler = summed_sampler(Sampler, pids)(0)
        page = os.sysconf("SC_PAGE_SIZE")
        each = [int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * page for pid in pids]
        assert abs(sampler.rss() - sum(each)) < 4 * 2**20
        assert sampler.rss() > max(each)
        ticks = [sum(map(int, Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13]))
                 for pid in pids]
        assert sum(ticks) <= sampler.ticks() <= sum(ticks) + 50
    finally:
        child.stdin.close()
        child.wait(10)
