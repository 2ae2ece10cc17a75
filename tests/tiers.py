"""`make test`: the whole suite as two tiers that share the machine, side by side.

Most of the suite's time is spent waiting (for an election timeout, a session to expire, a JVM to start, a
child process to answer), not computing, so two pytest processes on two cores finish well before one
would. The tiers are split where they cannot disturb each other:

- **jvm**: the tests that run Java (the Java client and Kafka's tools, Apache Kafka as the differential
  oracle, Spark, the share group on a cluster with Java members beside Python ones, S3Proxy under the
  S3 remote storage), and some clusters of node processes, to even the tiers' times: each starts its brokers
  on free ports and its JVMs under its own temporary directory;
- **python**: everything else, the unit tests, in-process and multi-process brokers, clusters, the
  labs, and the nemesis, the only tests that use fixed ports (`make cluster`'s) or network namespaces.

Each tier gets its own --basetemp, so neither cleans up the other's directories. The python tier prints as it
goes; the jvm tier's output is kept in a file and printed once it ends. The exit status is the first non-zero
of the two (a tier in which ``-k`` selects nothing passes). Extra arguments are passed to both pytest runs
(``-x``, ``-k ...``).

    .venv/bin/python -m tests.tiers            # what make test runs
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JVM_TIER = ["tests/jvm", "tests/differential", "tests/spark", "tests/labs/test_lab_10_spark.py",
            "tests/cluster/test_share_groups_on_a_cluster.py",
            "tests/log/remote/test_s3_remote_storage_manager.py",
            # clusters of node processes on free ports, moved here to even the two tiers' times
            *(f"tests/cluster/test_{name}.py" for name in (
                "tiered_storage_cluster", "tiered_storage_on_a_cluster", "eligible_leader_replicas",
                "transactions_on_a_cluster", "exactly_once_coordinator_failover"))]


def pytest_command(paths: list[str], ignore: list[str], basetemp: Path, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", f"--basetemp={basetemp}", *paths,
            *(f"--ignore={p}" for p in ignore), *extra]


def main(argv: list[str]) -> int:
    scratch = Path(tempfile.mkdtemp(prefix="kafka-teaching-tiers-"))
    jvm_log = scratch / "jvm-tier.log"
    start = time.monotonic()
    with open(jvm_log, "wb") as out:
        jvm = subprocess.Popen(pytest_command(JVM_TIER, [], scratch / "jvm", argv), cwd=ROOT,
                               stdout=out, stderr=subprocess.STDOUT)
        python = subprocess.run(pytest_command(["tests"], JVM_TIER, scratch / "python", argv), cwd=ROOT)
        print(f"\n== python tier: exit {python.returncode} after {time.monotonic() - start:.0f} s; "
              "waiting for the jvm tier", flush=True)
        jvm_status = jvm.wait()
    print(f"\n== jvm tier ({', '.join(JVM_TIER)}): exit {jvm_status} after {time.monotonic() - start:.0f} s",
          flush=True)
    sys.stdout.write(jvm_log.read_text(errors="replace"))
    sys.stdout.flush()
    return passed(python.returncode) or passed(jvm_status)


def passed(status: int) -> int:
    """pytest's exit status, with "no tests collected" (5: a -k that selects nothing in this tier) a pass."""
    return 0 if status == 5 else status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
