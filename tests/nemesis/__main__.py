"""`python -m tests.nemesis [--duration S] [--seed N] [--workdir DIR] [--hold]`: one nemesis run
(make nemesis).

Prints the seed first and the verdict last, `nemesis: seed S, F faults, A acknowledged, L lost,
D duplicated, R reordered, V diverged ISR replicas` (then, after `;`, the Java producer's share of
the client counts); exits 1 if anything was lost, duplicated or reordered, an ISR member's log
differed from its leader's below the high watermark (tests/nemesis/replica_check.py) or the checker
found another anomaly, 2 if this machine cannot make the hosts (the reason is printed).
"""

from __future__ import annotations

import argparse
import logging
import random
import signal
import sys
import tempfile
from pathlib import Path

from kafka.utils.logging import configure_logging
from tests.nemesis.hosts import unavailable_reason
from tests.nemesis.run import hosts_and_cluster, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.nemesis", description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=600, help="seconds of faults (default 600)")
    parser.add_argument("--seed", type=int, default=None, help="replay this seed (default: a random one)")
    parser.add_argument("--workdir", type=Path, default=None, help="node data and logs (default: a temp dir)")
    parser.add_argument("--hold", action="store_true",
                        help="no faults, no workload: start the hosts and the cluster and keep them until "
                             "Ctrl-C (lab 12, step 7)")
    args = parser.parse_args(argv)
    configure_logging(level=logging.WARNING)  # the checker's in-process log reads are not news
    reason = unavailable_reason()
    if reason:
        print(f"nemesis: skipped: {reason}")
        return 2
    if args.hold:
        return hold(args.workdir or Path(tempfile.mkdtemp(prefix="nemesis-hold-")))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix=f"nemesis-{seed}-"))
    print(f"nemesis: node data and logs in {workdir}", flush=True)
    verdict = run(seed, args.duration, workdir, log=lambda line: print(line, flush=True))
    if verdict.details():
        print(verdict.details())
    print(verdict.line())
    return 0 if verdict.ok else 1


def _interrupted(signum, frame) -> None:
    raise KeyboardInterrupt


def hold(workdir: Path) -> int:
    # Ctrl-C or a plain kill both tear down: a shell ignores SIGINT in a job it put in the background.
    signal.signal(signal.SIGINT, _interrupted)
    signal.signal(signal.SIGTERM, _interrupted)
    with hosts_and_cluster(workdir, tag="7") as (hosts, cluster):
        for node_id, node in cluster.nodes.items():
            print(f"node {node_id}: {node.bootstrap} in namespace {hosts.namespaces[node_id]}, "
                  f"log {node.log_path}")
        print(f"clients: --bootstrap-server {cluster.bootstrap}; "
              "Ctrl-C stops the nodes and removes the hosts", flush=True)
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
