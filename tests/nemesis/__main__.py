"""`python -m tests.nemesis [--duration S] [--seed N] [--workdir DIR]`: one nemesis run (make nemesis).

Prints the seed first and the verdict last, `nemesis: seed S, F faults, A acknowledged, L lost,
D duplicated, R reordered`; exits 1 if anything was lost, duplicated or reordered or the checker
found another anomaly, 2 if this machine cannot make the hosts (the reason is printed).
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import tempfile
from pathlib import Path

from kafka.utils.logging import configure_logging
from tests.nemesis.hosts import unavailable_reason
from tests.nemesis.run import run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.nemesis", description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=600, help="seconds of faults (default 600)")
    parser.add_argument("--seed", type=int, default=None, help="replay this seed (default: a random one)")
    parser.add_argument("--workdir", type=Path, default=None, help="node data and logs (default: a temp dir)")
    args = parser.parse_args(argv)
    configure_logging(level=logging.WARNING)  # the checker's in-process log reads are not news
    reason = unavailable_reason()
    if reason:
        print(f"nemesis: skipped: {reason}")
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix=f"nemesis-{seed}-"))
    print(f"nemesis: node data and logs in {workdir}", flush=True)
    verdict = run(seed, args.duration, workdir, log=lambda line: print(line, flush=True))
    if verdict.details():
        print(verdict.details())
    print(verdict.line())
    return 0 if verdict.ok else 1


if __name__ == "__main__":
    sys.exit(main())
