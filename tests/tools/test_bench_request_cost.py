"""The two `make bench` scripts that explain a request's CPU at a low rate still run and print their
line: bench/handoff_floor.py (the thread hand-offs alone) and bench/produce_path.py (a produce
request's work on the I/O thread, warm and cold). Short runs: the figures are for `make bench`."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.helpers import REPO


def run_script(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_handoff_floor_prints_both_servers_cost():
    out = run_script("bench/handoff_floor.py", "--rate", "200", "--seconds", "0.5", "--io-threads", "2")
    assert re.search(r"HANDOFF rate=200/s: inline \d+ µs a request, with the two hand-offs \d+ µs", out), out


def test_produce_path_prints_warm_and_cold_cost():
    out = run_script("bench/produce_path.py", "--requests", "30")
    assert re.search(r"PRODUCE_PATH 5 x 100 B a request: \d+ µs back to back, \d+ µs with cold caches",
                     out), out
