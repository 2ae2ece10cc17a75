"""kafka-lab: list the course labs, check a student's work, and make a handout (no Kafka tool does
this; the model is MIT 6.5840, whose labs are checked by tests the students run themselves).

    kafka-lab list                       one lab a line: number, title, status, minutes
    kafka-lab check 03                   run lab 03's checks on this tree, in plain words
    kafka-lab handout ../handout         copy the tree, each lab's solution replaced by a TODO
    kafka-lab handout ../h --lab 03      only lab 03's solution removed

Each lab teaches a passage of a seed document (docs/labs/README.md). Its checks are the pytest file
tests/labs/test_lab_NN_*.py, so `make test` runs them too and a lab cannot rot; `check` runs that
file with a small reporter that prints each check's docstring as PASS or STILL MISSING instead of
a traceback. The reference solutions stay in the source, between `# BEGIN LAB NN SOLUTION: hint`
and `# END LAB NN SOLUTION`; `handout` replaces each such block with a TODO that raises
NotImplementedError("lab NN: ..."), so the checks fail until the student writes the code.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LAB_TESTS = Path("tests") / "labs"
LINE_LENGTH = 110  # pyproject.toml's ruff line-length: a handout's make lint checks its TODOs too


@dataclass(frozen=True)
class Lab:
    number: str  # two digits, as students type it: kafka-lab check 03
    slug: str  # docs/labs/NN-slug.md
    title: str
    seed: str  # the seed passage it teaches
    minutes: int | None  # measured by following the page; None until the lab is written
    status: str  # "ready" or "next"

    @property
    def page(self) -> Path:
        return Path("docs") / "labs" / f"{self.number}-{self.slug}.md"


LABS = (
    Lab("01", "wire-protocol", "The wire protocol by hand",
        "001, KAFKA-643: a generic header and a specific body", 40, "ready"),
    Lab("02", "produce-journey", "A produce request's journey",
        "002: network thread, request queue, I/O thread", 50, "ready"),
    Lab("03", "commit-log", "The commit log on disk",
        "002, \"Kafka Physical Storage\": segments, .log and .index; zero copy", 55, "ready"),
    Lab("04", "purgatory", "Purgatory: requests that wait",
        "000, \"Purgatories and Delayed Operations\"; 002, fetch min bytes and max wait", 55, "ready"),
    Lab("05", "producer", "The producer: partitioner and batching",
        "002, the producer; 003, in-flight requests per connection", 45, "ready"),
    Lab("06", "consumer-groups", "Consumer groups and committed offsets",
        "004, consumer groups; 000, the offset manager", 75, "ready"),
    Lab("07", "replication", "Replication and the high watermark",
        "004, leader, followers and the high watermark", 70, "ready"),
    Lab("08", "kraft", "KRaft: the metadata quorum",
        "004, KRaft instead of ZooKeeper; 002, the control plane", 80, "ready"),
    Lab("09", "idempotence-transactions", "Idempotence and transactions",
        "004, acks and idempotence", 55, "ready"),
    Lab("10", "spark", "Spark Structured Streaming over the broker",
        "002, consumers reading by offset", 75, "ready"),
    Lab("11", "observability-under-load", "Observability under load",
        "002, the request's journey, measured", 70, "ready"),
    Lab("12", "break-it", "Break it: faults and recovery",
        "002 and 004, durability and failover", 90, "ready"),
    Lab("13", "who-may-do-what", "Who may do what: SASL and ACLs",
        "002: a login before the request queue, an ACL before the work", 60, "ready"),
    Lab("14", "share-groups", "Share groups: more consumers than partitions",
        "004, consumer groups: a partition is read by only one consumer", 60, "ready"),
    Lab("15", "tiered-storage", "Tiered storage: old segments, a cold fetch",
        "002, the fetch's journey: a read off the I/O thread, answered from the purgatory", 45, "ready"),
)


def find_lab(number: str) -> Lab:
    wanted = number.strip().zfill(2)
    for lab in LABS:
        if lab.number == wanted:
            return lab
    raise SystemExit(f"kafka-lab: there is no lab {number!r}; `kafka-lab list` shows them")


# ------------------------------------------------------------------------------------------ list


def list_labs(out=sys.stdout) -> int:
    for lab in LABS:
        minutes = f"~{lab.minutes} min" if lab.minutes else "comes next"
        page = lab.page if lab.status == "ready" else "docs/labs/README.md"
        print(f"{lab.number}  {lab.title:<45} {lab.status:<6} {minutes:<11} {page}", file=out)
    return 0


# ------------------------------------------------------------------------------------------ check


def first_line(text: str | None) -> str:
    lines = [line.strip() for line in (text or "").strip().splitlines()]
    return " ".join(lines[: lines.index("")] if "" in lines else lines)


class PlainWordsReporter:
    """A pytest plugin: one line per check, its docstring, and why it is still missing.

    The why is the assertion's message, or the `NotImplementedError("lab NN: ...")` a TODO raised
    (in the test, or on a broker thread, where only the captured log shows it), or the exception's
    type and message with the last place in kafka/ it came from."""

    TODO = re.compile(r"NotImplementedError: (lab \d\d: [^\n]*)")

    def __init__(self, out=sys.stdout) -> None:
        self.out = out
        self.docs: dict[str, str] = {}
        self.reasons: dict[str, str] = {}
        self.results: list[tuple[str, bool, str]] = []  # (what, passed, why)
        self.load_errors: list[str] = []

    def pytest_collection_modifyitems(self, items) -> None:
        for item in items:
            doc = first_line(getattr(item, "obj", None).__doc__) or item.name
            callspec = getattr(item, "callspec", None)  # a parametrized check: say which case
            self.docs[item.nodeid] = f"{doc} [{callspec.id}]" if callspec else doc

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            text = str(report.longrepr)
            match = self.TODO.search(text)
            last = [line for line in text.splitlines() if line.strip()][-1:] or ["?"]
            self.load_errors.append(match.group(1) if match else last[0].lstrip("E ").strip())

    def pytest_runtest_makereport(self, item, call) -> None:
        if call.excinfo is not None and item.nodeid not in self.reasons:
            self.reasons[item.nodeid] = self._why(call.excinfo)

    def pytest_runtest_logreport(self, report) -> None:
        if report.when == "call" or (report.when == "setup" and not report.passed):
            why = self.reasons.get(report.nodeid, "")
            captured = "\n".join(content for _, content in report.sections)
            todo = self.TODO.search(captured)
            if not report.passed and todo and todo.group(1) not in why:
                why = f"the broker hit a TODO: {todo.group(1)}" + (f" ({why})" if why else "")
            self.results.append((self.docs.get(report.nodeid, report.nodeid), report.passed, why))

    @staticmethod
    def _why(excinfo) -> str:
        error = excinfo.value
        if isinstance(error, AssertionError):
            return first_line(str(error).split("\nassert ")[0]) or "an assertion failed"
        where = ""
        for entry in reversed(excinfo.traceback):  # the last place in the broker's code, not the check's
            path = Path(entry.path)
            if REPO / "kafka" in path.parents:
                where = f"{path.relative_to(REPO)}:{entry.lineno + 1}"
                break
        todo = re.match(r"lab \d\d: (?:[\w.]+: )?(.*?)(?: \(docs/labs/.*\))?$", str(error))
        if isinstance(error, NotImplementedError) and todo:
            return f"still a TODO at {where}: {todo.group(1)}"
        return f"{type(error).__name__}: {first_line(str(error))}" + (f" (at {where})" if where else "")

    def summary(self, lab: Lab) -> int:
        print(f"lab {lab.number}: {lab.title}", file=self.out)
        for error in self.load_errors:
            print(f"  STILL MISSING  the checks could not even start: {error}", file=self.out)
        previous = None
        for what, passed, why in self.results:
            print(f"  {'PASS         ' if passed else 'STILL MISSING'}  {what}", file=self.out)
            if not passed and why:
                print(f"                 -> {'the same' if why == previous else why}", file=self.out)
                previous = why
        passed = sum(1 for _, ok, _ in self.results if ok)
        missing = len(self.results) - passed + len(self.load_errors)
        if missing == 0 and passed:
            print(f"all {passed} checks pass: lab {lab.number} is done.", file=self.out)
            return 0
        print(f"{passed} of {passed + missing} checks pass; {missing} still missing. "
              f"The exercise is in {lab.page}.", file=self.out)
        return 1


def startup_error(text: str) -> str:
    """The gist of pytest's complaint when the checks cannot start: the error and where it is."""
    lines = [line[2:].strip() for line in text.splitlines() if line.startswith("E ")]
    if not lines:
        return text.strip()[-500:] or "pytest ran no checks"
    where = next((m for line in lines if (m := re.match(r'File "(.+)", line (\d+)', line))), None)
    if where is None:
        return lines[-1]
    path = Path(where.group(1))
    shown = path.relative_to(REPO) if REPO in path.parents else path
    return f"{lines[-1]} ({shown}:{where.group(2)})"


def check_files(lab: Lab, root: Path = REPO) -> list[Path]:
    return sorted((root / LAB_TESTS).glob(f"test_lab_{lab.number}_*.py"))


def check(lab: Lab, out=sys.stdout) -> int:
    files = check_files(lab)
    if not files:
        print(f"lab {lab.number} ({lab.title}) has no checks yet: it "
              f"{'comes next' if lab.status == 'next' else 'is'} "
              f"in docs/labs/README.md", file=out)
        return 0 if lab.status == "next" else 1
    try:
        import pytest
    except ImportError:
        print("kafka-lab check needs pytest: run `make test` once, or pip install -e '.[test]'",
              file=sys.stderr)
        return 2
    reporter = PlainWordsReporter(out)
    # -p no:terminal: the reporter prints instead of pytest; the ini's -ra belongs to the terminal plugin.
    args = ["-c", str(REPO / "pyproject.toml"), "--rootdir", str(REPO), "-o", "addopts=", "-o", "timeout=60",
            "-p", "no:terminal", "-p", "no:cacheprovider", *map(str, files)]
    print(f"running {', '.join(str(f.relative_to(REPO)) for f in files)} ...", file=out, flush=True)
    errors = io.StringIO()  # what pytest says when it cannot even start (your code does not import)
    with contextlib.redirect_stderr(errors):
        pytest.main(args, plugins=[reporter])
    if not reporter.results and not reporter.load_errors:
        reporter.load_errors.append(startup_error(errors.getvalue()))
    return reporter.summary(lab)


# ------------------------------------------------------------------------------------------ handout

BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN LAB (?P<lab>\d\d) SOLUTION(?::\s*(?P<hint>.*?))?\s*$")
END = re.compile(r"^[ \t]*# END LAB (?P<lab>\d\d) SOLUTION\s*$")
DEF = re.compile(r"^(?P<indent>[ \t]*)(?:async\s+)?(?P<kind>def|class)\s+(?P<name>\w+)")
# Never copied into a handout: the repository's history, the student's own environment, run data
# (as .gitignore says: `data/` and `build/` only at the top, caches anywhere).
SKIP = {".git", ".venv", ".venv-kafka-python", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis"}
SKIP_AT_TOP = {"data", "build"}


@dataclass(frozen=True)
class Block:
    lab: str
    path: Path  # relative to the tree
    line: int  # of the BEGIN marker, 1-based
    where: str  # the enclosing Class.function


def _enclosing(lines: list[str], index: int, indent: int) -> str:
    """`Class.function` around line `index`: the nearest def (and its class) indented less than it."""
    names = []
    for line in reversed(lines[:index]):
        match = DEF.match(line)
        if match and len(match.group("indent")) < indent:
            names.append(match.group("name"))
            indent = len(match.group("indent"))
            if indent == 0:
                break
    return ".".join(reversed(names)) or "module"


def solution_blocks(lines: list[str], path: Path) -> list[tuple[int, int, re.Match]]:
    """(BEGIN line index, END line index, BEGIN match) of every block; a stray or unmatched marker is
    an error."""
    blocks, open_block = [], None
    for i, line in enumerate(lines):
        if begin := BEGIN.match(line):
            if open_block is not None:
                raise ValueError(f"{path}:{i + 1}: BEGIN LAB inside the block opened at line "
                                 f"{open_block[0] + 1}")
            open_block = (i, begin)
        elif end := END.match(line):
            if open_block is None or open_block[1].group("lab") != end.group("lab"):
                raise ValueError(f"{path}:{i + 1}: END LAB {end.group('lab')} SOLUTION without its BEGIN")
            blocks.append((open_block[0], i, open_block[1]))
            open_block = None
    if open_block is not None:
        raise ValueError(f"{path}:{open_block[0] + 1}: BEGIN LAB {open_block[1].group('lab')} SOLUTION has "
                         "no END")
    return blocks


def strip_solutions(source: str, path: Path, labs: set[str] | None) -> tuple[str, list[Block]]:
    """`source` with each solution block of `labs` (None: every lab) replaced by a TODO that raises."""
    lines = source.splitlines(keepends=True)
    blocks: list[Block] = []
    for first, last, begin in reversed(solution_blocks(lines, path)):  # from the end: indexes stay valid
        lab, indent = begin.group("lab"), begin.group("indent")
        if labs is not None and lab not in labs:
            continue
        hint = begin.group("hint") or "write this"
        where = _enclosing(lines, first, len(indent.expandtabs()))
        page = find_lab(lab).page
        message = f"lab {lab}: {where}: {hint} ({page})"
        lines[first:last + 1] = todo_lines(indent, f"TODO lab {lab}: {hint}. See {page}.", message)
        blocks.insert(0, Block(lab, path, first + 1, where))
    return "".join(lines), blocks


def todo_lines(indent: str, comment: str, message: str) -> list[str]:
    """The TODO comment and the raise that replace a solution, within the handout's 110 columns (its
    `make lint` checks them too): the comment re-flowed, the message split into adjacent literals."""
    width = LINE_LENGTH - len(indent.expandtabs())
    lines = [f"{indent}# {text}\n" for text in textwrap.wrap(comment, width - 2)]
    one_line = f"raise NotImplementedError({message!r})"
    if len(one_line) <= width:
        return lines + [f"{indent}{one_line}\n"]
    inner = indent + " " * 4
    parts = textwrap.wrap(message, width - 4 - 3, drop_whitespace=False)  # the quotes and a ")"
    assert "".join(parts) == message
    return lines + [f"{indent}raise NotImplementedError(\n"] + [f"{inner}{part!r}\n" for part in parts[:-1]] \
        + [f"{inner}{parts[-1]!r})\n"]


def mark_unused_imports(source: str, lab: str) -> str:
    """Add `# noqa: F401` to imports only the removed solutions used, so the handout passes `make lint`
    and the student still sees what the solution needed."""
    tree = ast.parse(source)
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    used |= {node.value.id for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)}
    lines = source.splitlines(keepends=True)
    for node in tree.body:
        if not isinstance(node, ast.Import | ast.ImportFrom) or getattr(node, "module", None) == "__future__":
            continue
        for alias in node.names:
            name = (alias.asname or alias.name).split(".")[0]
            line = lines[alias.lineno - 1]
            if name not in used and "noqa" not in line:
                body = line.rstrip("\n")
                lines[alias.lineno - 1] = f"{body}  # noqa: F401 (lab {lab}: the solution used it)\n"
    return "".join(lines)


def tree_files(root: Path) -> list[Path]:
    """The files a handout copies, relative to `root`: what git tracks or would add, else a walk."""
    if (root / ".git").exists():
        try:
            listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
                                     "--exclude-standard"], check=True, capture_output=True).stdout
            return sorted({Path(p) for p in listed.decode().split("\0") if p and (root / p).is_file()})
        except (OSError, subprocess.CalledProcessError):
            pass
    files = []
    for directory, subdirs, names in os.walk(root):
        top = Path(directory) == root
        subdirs[:] = [d for d in subdirs
                      if d not in SKIP and not d.endswith(".egg-info") and not (top and d in SKIP_AT_TOP)]
        files.extend(Path(directory, name).relative_to(root) for name in names)
    return sorted(files)


def make_handout(target: Path, labs: set[str] | None, root: Path = REPO, out=sys.stdout) -> int:
    target = target.resolve()
    if target == root or root in target.parents:
        print(f"kafka-lab: put the handout outside the repository, not in {target}", file=sys.stderr)
        return 2
    if target.exists() and any(target.iterdir()):
        print(f"kafka-lab: {target} is not empty; choose a new directory", file=sys.stderr)
        return 2
    blocks: list[Block] = []
    for relative in tree_files(root):
        source, destination = root / relative, target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        if relative.suffix != ".py" or relative.parts[0] == "tests":
            shutil.copy2(source, destination)
            continue
        text = source.read_text(encoding="utf-8")
        stripped, found = strip_solutions(text, relative, labs)
        if found:
            stripped = mark_unused_imports(stripped, found[0].lab)
        destination.write_text(stripped, encoding="utf-8")
        shutil.copymode(source, destination)
        blocks += found
    print(f"handout in {target}: {len(blocks)} solution block(s) replaced by a TODO", file=out)
    for block in sorted(blocks, key=lambda b: (b.lab, str(b.path))):
        print(f"  lab {block.lab}  {block.path}:{block.line}  {block.where}", file=out)
    print("students: `make run`, then `kafka-lab check NN` (or `make lab N=NN`) after each exercise",
          file=out)
    return 0


# ------------------------------------------------------------------------------------------ main


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kafka-lab", description="The course labs: list them, check them, "
                                                                  "make a handout. See docs/labs/README.md.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="one lab a line: number, title, status, minutes, page")
    check_parser = commands.add_parser("check", help="run one lab's checks on this tree")
    check_parser.add_argument("lab", help="the lab's number: 01, 02, ...")
    handout = commands.add_parser("handout", help="copy the tree with the lab solutions replaced by TODOs")
    handout.add_argument("directory", type=Path, help="a new, empty directory outside this repository")
    handout.add_argument("--lab", action="append", dest="labs", metavar="NN",
                         help="remove only this lab's solution (repeat for several; default: every lab)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "list":
        try:
            return list_labs()
        except BrokenPipeError:  # `kafka-lab list | head -3`
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (Python flushes stdout at exit; let it go nowhere)
            return 0
    if args.command == "check":
        return check(find_lab(args.lab))
    labs = {find_lab(n).number for n in args.labs} if args.labs else None
    try:
        return make_handout(args.directory, labs)
    except ValueError as e:
        print(f"kafka-lab: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
