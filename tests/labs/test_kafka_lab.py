"""kafka-lab itself (kafka/tools/lab.py): the list matches docs/labs/README.md, every ready lab has a
page, a check file and one solution block, a handout replaces exactly those blocks with TODOs and
still compiles, and the reporter turns pytest results into plain-words lines."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kafka.tools.lab import (
    BEGIN,
    LABS,
    REPO,
    PlainWordsReporter,
    check_files,
    list_labs,
    make_handout,
    startup_error,
    strip_solutions,
    tree_files,
)
from tests.integration.test_long_poll import create, produce
from tests.wire import WireClient

pytest_plugins = ["pytester"]
READY = [lab for lab in LABS if lab.status == "ready"]


def test_list_prints_one_lab_a_line_starting_with_its_number_and_title():
    out = io.StringIO()
    assert list_labs(out) == 0
    lines = out.getvalue().splitlines()
    assert [line[:2] for line in lines] == [f"{n:02d}" for n in range(1, len(LABS) + 1)]
    assert all(line[4:].startswith(lab.title) for line, lab in zip(lines, LABS, strict=True))


def test_the_readme_shows_what_kafka_lab_list_prints():
    out = io.StringIO()
    list_labs(out)
    text = (REPO / "docs" / "labs" / "README.md").read_text(encoding="utf-8")
    shown = "```text\n" + out.getvalue() + "```"
    assert shown in text, "docs/labs/README.md's kafka-lab list output is stale"


def test_the_readme_table_lists_the_same_labs():
    text = (REPO / "docs" / "labs" / "README.md").read_text(encoding="utf-8")
    table = text.split("\n## The labs\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\d\d) \| (?:\[([^\]]+)\]\(([^)]+)\)|([^|]+?)) \| ([^|]+?) \| ([^|]+?) \|", table,
                      re.M)
    assert [(n, (linked or plain).strip(), seed, status) for n, linked, _, plain, seed, status in rows] == [
        (lab.number, lab.title, lab.seed, "ready" if lab.status == "ready" else "comes next") for lab in LABS]
    assert [page for _, _, page, _, _, _ in rows if page] == [lab.page.name for lab in LABS
                                                              if lab.status == "ready"]


@pytest.mark.parametrize("lab", READY, ids=lambda lab: lab.number)
def test_a_ready_lab_has_its_page_its_checks_and_one_solution_block(lab):
    assert (REPO / lab.page).exists(), f"{lab.page} is missing"
    assert len(check_files(lab)) == 1, (
        f"lab {lab.number} needs exactly one tests/labs/test_lab_{lab.number}_*.py")
    assert f"kafka-lab check {lab.number}" in (REPO / lab.page).read_text(encoding="utf-8")
    blocks = [p for p in (REPO / "kafka").rglob("*.py")
              if f"# BEGIN LAB {lab.number} SOLUTION" in p.read_text(encoding="utf-8")]
    assert len(blocks) == 1, f"lab {lab.number}'s solution should be one marked block, found in {blocks}"


def test_labs_that_come_next_have_no_checks_yet():
    assert all(not check_files(lab) and lab.minutes is None for lab in LABS if lab.status == "next")


SOURCE = '''class Index:
    def lookup(self, target):
        """Docstring stays."""
        # BEGIN LAB 03 SOLUTION: binary-search it
        return bisect_right(self._keys, target)
        # END LAB 03 SOLUTION

    def other(self):
        # BEGIN LAB 04 SOLUTION
        return 4
        # END LAB 04 SOLUTION
'''


def test_a_solution_block_becomes_a_todo_that_raises():
    stripped, blocks = strip_solutions(SOURCE, Path("x.py"), {"03"})
    assert [(b.lab, b.line, b.where) for b in blocks] == [("03", 4, "Index.lookup")]
    assert "bisect_right" not in stripped and "return 4" in stripped, "only lab 03's block goes"
    todo = '        raise NotImplementedError("lab 03: Index.lookup: binary-search it'
    assert todo in stripped.replace("'", '"')
    namespace: dict = {}
    exec(compile(stripped, "x.py", "exec"), namespace)
    with pytest.raises(NotImplementedError, match="lab 03"):
        namespace["Index"]().lookup(1)


@pytest.mark.parametrize("broken", ["    # BEGIN LAB 03 SOLUTION\n    x = 1\n",
                                    "    x = 1\n    # END LAB 03 SOLUTION\n",
                                    "    # BEGIN LAB 03 SOLUTION\n    x = 1\n    # END LAB 04 SOLUTION\n"])
def test_unmatched_markers_are_refused(broken):
    with pytest.raises(ValueError, match="x.py"):
        strip_solutions(broken, Path("x.py"), None)


def test_a_handout_has_every_solution_replaced_and_still_compiles(tmp_path):
    out = io.StringIO()
    assert make_handout(tmp_path / "handout", None, out=out) == 0
    handout = tmp_path / "handout"
    assert (handout / "Makefile").exists() and (handout / "docs" / "labs" / "README.md").exists()
    assert not (handout / ".git").exists() and not (handout / ".venv").exists()
    todos = {}
    for path in (handout / "kafka").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not any(BEGIN.match(line)
                       for line in text.splitlines()), f"{path} still holds a solution block"
        compile(text, str(path), "exec")
        todos.update({m: path for m in re.findall(r'NotImplementedError\(\s*.lab (\d\d):', text)})
    assert sorted(todos) == [lab.number for lab in READY]
    if shutil.which("ruff") or (Path(sys.executable).parent / "ruff").exists():
        ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
        lint = subprocess.run([ruff, "check", "--no-cache", *map(str, todos.values())], capture_output=True,
                              text=True)
        assert lint.returncode == 0, f"a handout must pass `make lint`:\n{lint.stdout}"


def test_kafka_jmx_in_a_handout_prints_the_todo_in_one_line_not_a_traceback(tmp_path, broker):
    """Lab 11 step 3 in a handout: asked for a percentile before the exercise is done, kafka-jmx says
    which TODO stands in the way, as docs/labs/README.md promises."""
    assert make_handout(tmp_path / "handout", {"11"}, out=io.StringIO()) == 0
    client = WireClient(broker.port)
    create(client, "jmx")
    produce(client, "jmx", b"hello")
    client.close()
    handout = tmp_path / "handout"
    done = subprocess.run([sys.executable, "-m", "kafka.tools.jmx_tool", "--metrics-url",
                           broker.server.metrics_endpoint.url, "--one-time", "true", "--object-name",
                           "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce",
                           "--attributes", "Count,99thPercentile"],
                          capture_output=True, text=True, cwd=handout,
                          env={**os.environ, "PYTHONPATH": str(handout)},
                          timeout=60)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("kafka-jmx: lab 11: Snapshot.get_value: "), done.stderr
    assert done.stderr.rstrip().endswith("(docs/labs/11-observability-under-load.md)")


def test_a_handout_refuses_a_directory_inside_the_repository():
    assert make_handout(REPO / "handout-here", None, out=io.StringIO()) == 2


def test_the_reporter_prints_docstrings_as_pass_or_still_missing(pytester):
    pytester.makepyfile(test_fake_lab='''
        def test_done():
            """the part you wrote works"""

        def test_todo():
            """the part you have not written"""
            raise NotImplementedError("lab 09: Thing.method: write it (docs/labs/09-x.md)")

        def test_wrong():
            """the part you wrote wrongly"""
            assert 1 == 2, "want 2, got 1"
    ''')
    out = io.StringIO()
    reporter = PlainWordsReporter(out)
    pytester.runpytest("-p", "no:terminal", "-p", "no:cacheprovider", plugins=[reporter])
    assert [(what, ok) for what, ok, _ in reporter.results] == [
        ("the part you wrote works", True), ("the part you have not written", False),
        ("the part you wrote wrongly", False)]
    assert reporter.results[1][2].startswith("still a TODO") and reporter.results[1][2].endswith("write it")
    assert reporter.results[2][2] == "want 2, got 1"
    assert reporter.summary(LABS[0]) == 1
    assert "1 of 3 checks pass; 2 still missing." in out.getvalue()


def test_without_git_a_handout_copies_the_tree_but_not_run_data_or_environments(tmp_path):
    for name in ("Makefile", "kafka/x.py", "tests/protocol/data/frame.hex", "data/orders-0/0.log",
                 ".venv/bin/python",
                 "kafka/__pycache__/x.pyc", "kafka_teaching.egg-info/PKG-INFO"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    assert [str(p) for p in tree_files(tmp_path)] == ["Makefile", "kafka/x.py",
                                                      "tests/protocol/data/frame.hex"]


def test_code_that_does_not_import_is_reported_with_its_place():
    text = ("ImportError while loading conftest 'tests/conftest.py'.\n"
            "kafka/network/processor.py:27: in <module>\n    from kafka.protocol.header import "
            "parse_request_header\n"
            f'E     File "{REPO}/kafka/protocol/header.py", line 143\nE       return b"" +\nE                '
            '   ^\n'
            "E   SyntaxError: invalid syntax\n")
    assert startup_error(text) == "SyntaxError: invalid syntax (kafka/protocol/header.py:143)"
