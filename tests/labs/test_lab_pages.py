"""The Python snippets of the lab pages still run: a page whose snippet broke would lead a class
astray long before anyone noticed. Snippets that talk to `make run`'s broker on 127.0.0.1:9092
(and its /metrics on 9404) run against a broker on free ports instead, started with the
`--override`s of the `kafka-server-start` command the snippet's step gives, if it gives one."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from kafka.tools.lab import LABS, REPO

SNIPPET = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
STEP = re.compile(r"^## ", re.M)
# `    .venv/bin/kafka-server-start config/server.properties --override a=b \` and its continued lines
SERVER_START = re.compile(r"^ +\S*kafka-server-start config/server\.properties(?:.*\\\n)*.*$", re.M)
OVERRIDE = re.compile(r"--override ([a-z.]+)=(\S+)")
# Where the broker listens and keeps its data is the test's to choose.
PLACES = {"listeners", "advertised.listeners", "log.dirs", "metadata.log.dir", "metrics.listener"}


def step_overrides(step: str, before: int) -> dict[str, str]:
    """The overrides of the last broker command in `step` before position `before`."""
    commands = [m.group(0) for m in SERVER_START.finditer(step, 0, before)]
    if not commands:
        return {}
    return {key: value for key, value in OVERRIDE.findall(commands[-1]) if key not in PLACES}


def snippets():
    for lab in LABS:
        if lab.status != "ready":
            continue
        n = 0
        for step in STEP.split((REPO / lab.page).read_text(encoding="utf-8")):
            for match in SNIPPET.finditer(step):
                n += 1
                if "print(" in match.group(1):  # whole programs, not the lines to paste into one
                    yield pytest.param(lab.number, n, match.group(1), step_overrides(step, match.start()),
                                       id=f"lab {lab.number} snippet {n}")


@pytest.mark.parametrize(("lab", "n", "code", "overrides"), list(snippets()))
def test_the_snippet_runs(lab, n, code, overrides, start_broker, tmp_path):
    if "9092" in code or "9404" in code:
        broker = start_broker(tmp_path / "data", overrides)
        metrics = broker.server.metrics_endpoint.url.removeprefix("http://")
        code = code.replace("127.0.0.1:9404", metrics).replace("9092", str(broker.port))
    script = tmp_path / f"lab{lab}_{n}.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"docs/labs page of lab {lab}, snippet {n}, failed:\n{done.stderr[-2000:]}"
    assert done.stdout.strip(), "the snippet printed nothing"


def test_a_step_gives_its_snippets_the_overrides_of_its_broker_command():
    step = ("## Step 9\n\n    .venv/bin/kafka-server-start config/server.properties --override listeners=X "
            "\\\n"
            "      --override log.dirs=./d --override connections.max.idle.ms=10000 \\\n"
            "      --override queued.max.request.bytes=2097152\n\n```python\nprint(1)\n```\n")
    assert step_overrides(step, step.index("```python")) == {"connections.max.idle.ms": "10000",
                                                             "queued.max.request.bytes": "2097152"}
    assert step_overrides(step, 0) == {}


NEEDS = re.compile(r"^\*\*Exercises of other labs this one needs:\*\* (.*?)(?:\n\n|\Z)", re.S | re.M)
# Lab 11's page is someone else's for now (issue 45 item 1); it joins once its dashboards land.
NEEDS_NOT_YET = {"11"}


@pytest.mark.parametrize("lab",
                         [lab for lab in LABS if lab.status == "ready" and lab.number not in NEEDS_NOT_YET],
                         ids=lambda lab: lab.number)
def test_each_lab_says_which_other_exercises_its_steps_need(lab):
    """In a full handout every exercise is a TODO: a page says which other labs' its steps reach, and
    how to run it without them (a handout of this lab alone)."""
    match = NEEDS.search((REPO / lab.page).read_text(encoding="utf-8"))
    assert match, f"{lab.page}: no '**Exercises of other labs this one needs:**' paragraph"
    text = " ".join(match.group(1).split())
    named = set(re.findall(r"\blab (\d\d)'s", text))
    assert named <= {other.number for other in LABS} - {lab.number}, f"{lab.page} names labs {sorted(named)}"
    if named:
        assert f'make lab-handout DIR=../lab-{lab.number} LABS="{lab.number}"' in text, (
            f"{lab.page}: say how to run it on the other labs' reference solutions")
    else:
        assert text.startswith("nothing"), f"{lab.page}: name the labs, or say nothing is needed"
