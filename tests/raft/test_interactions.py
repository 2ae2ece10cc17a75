"""Data-driven raft scenarios (etcd-io/raft's interaction tests): each file in tests/raft/testdata/ is a
script of commands with the output expected after each, and reads like a lab. RAFT_REWRITE=1
regenerates the expected output; review the diff before committing it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.raft.interaction import render, run_script

TESTDATA = Path(__file__).parent / "testdata"


@pytest.mark.parametrize("script", sorted(p.name for p in TESTDATA.glob("*.txt")))
def test_script(script):
    path = TESTDATA / script
    results = run_script(path.read_text())
    if os.environ.get("RAFT_REWRITE"):
        path.write_text(render(results))
        return
    for _, command, expected, actual in results:
        assert actual == expected, f"{script}: after `{command}`\nexpected:\n{expected}\nactual:\n{actual}"
