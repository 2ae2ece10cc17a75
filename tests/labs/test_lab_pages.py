"""The Python snippets of the lab pages still run: a page whose snippet broke would lead a class
astray long before anyone noticed. Snippets that talk to `make run`'s broker on 127.0.0.1:9092
run against a broker on a free port instead."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from kafka.tools.lab import LABS, REPO

SNIPPET = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
SNIPPETS = [(lab.number, n, code) for lab in LABS if lab.status == "ready"
            for n, code in enumerate(SNIPPET.findall((REPO / lab.page).read_text(encoding="utf-8")), 1)
            if "print(" in code]  # whole programs, not the lines to paste into one


@pytest.mark.parametrize(("lab", "n", "code"), SNIPPETS, ids=[f"lab {lab} snippet {n}" for lab, n, _ in SNIPPETS])
def test_the_snippet_runs(lab, n, code, start_broker, tmp_path):
    if "9092" in code:
        code = code.replace("9092", str(start_broker(tmp_path / "data").port))
    script = tmp_path / f"lab{lab}_{n}.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"docs/labs page of lab {lab}, snippet {n}, failed:\n{done.stderr[-2000:]}"
    assert done.stdout.strip(), "the snippet printed nothing"
