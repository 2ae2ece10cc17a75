"""The shape of the tree (issue 31, "arrows only point down"): no two files of kafka/ import each
other in a circle, and no file grows past 600 lines. Read with ast: fast, offline, no imports run.

Every import counts, wherever it stands (top of the file, inside a function, under TYPE_CHECKING),
because a circle hidden in a function or a type hint is still two files that each need the other.
The package layers themselves are import-linter's (`lint-imports`, pyproject.toml).

Time is injected (issue 31 item 5): below KafkaServer nothing may default `time` to the real clock,
or a test that forgets MockTime reads wall time without a word.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.source_tree import KAFKA, parsed

pytestmark = pytest.mark.fast

MAX_LINES = 600
# The timer's three import each other under TYPE_CHECKING, as Kafka's TimerTask, TimerTaskEntry and
# TimerTaskList refer to one another: the one circle kept on purpose.
ALLOWED_CYCLES = [{"kafka.utils.timer.timer_task", "kafka.utils.timer.timer_task_entry",
                   "kafka.utils.timer.timer_task_list"}]
# Files allowed over MAX_LINES, each waiting for its second concept to leave: none today. A file
# may not grow past the limit; when one must, find the concept that wants its own file.
KNOWN_TOO_LONG: set[str] = set()
# The entry points a user or a command line builds without a clock, which choose the real one, as
# Kafka's KafkaServer and Java clients do. Everything they build is handed their `time`.
TIME_DEFAULT_ALLOWED = {
    "kafka/server/kafka_server.py::KafkaServer.__init__",
    "kafka/clients/producer/kafka_producer.py::KafkaProducer.__init__",
    "kafka/clients/consumer/kafka_consumer.py::KafkaConsumer.__init__",
    "kafka/clients/admin/admin_client.py::AdminClient.__init__",
    # a plugin the broker builds by class name (remote.log.storage.manager.class.name), with no arguments,
    # as Kafka's Utils.newInstance does
    "kafka/log/remote/s3_remote_storage_manager.py::S3RemoteStorageManager.__init__",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(KAFKA.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(KAFKA.rglob("*.py"))}


def imported_modules(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The kafka modules this file imports (a name imported from a package counts as its module
    when it is one, else as the package)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def resolve(dotted: str) -> None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        if dotted and dotted != name:
            found.add(dotted)

    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                resolve(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                resolve(f"{source}.{alias.name}")
    return found


def import_cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(component)
    return cycles


def test_no_file_of_kafka_imports_another_in_a_circle():
    known = modules()
    graph = {name: imported_modules(name, path, known) for name, path in known.items()}
    cycles = [sorted(c) for c in import_cycles(graph) if c not in ALLOWED_CYCLES]
    assert not cycles, f"files that import each other in a circle: {cycles}"


def test_the_cycle_finder_finds_a_circle_through_three_modules():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles(graph) == [{"a", "b", "c"}]


def test_no_file_of_kafka_is_over_600_lines():
    lengths = {path.relative_to(KAFKA.parent).as_posix(): len(path.read_text().splitlines())
               for path in KAFKA.rglob("*.py")}
    too_long = {path: n for path, n in lengths.items() if n > MAX_LINES and path not in KNOWN_TOO_LONG}
    assert not too_long, f"past {MAX_LINES} lines, look for the second concept: {too_long}"
    fixed = {path for path in KNOWN_TOO_LONG if lengths.get(path, 0) <= MAX_LINES}
    assert not fixed, f"no longer over {MAX_LINES} lines: take them off KNOWN_TOO_LONG: {sorted(fixed)}"


def time_defaults(tree: ast.AST) -> list[str]:
    """Class.function (or function) for each definition that gives a parameter named `time` a default."""
    found: list[str] = []

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{scope}{child.name}.")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                args = child.args
                positional = args.posonlyargs + args.args
                defaulted = positional[len(positional) - len(args.defaults):]
                defaulted += [arg for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                              if default]
                name = getattr(child, "name", "<lambda>")
                if any(arg.arg == "time" for arg in defaulted):
                    found.append(f"{scope}{name}")
                visit(child, f"{scope}{name}.")
            else:
                visit(child, scope)

    visit(tree, "")
    return found


def test_only_the_entry_points_default_time_to_the_real_clock():
    defaults = {f"{path.relative_to(KAFKA.parent).as_posix()}::{name}"
                for path in sorted(KAFKA.rglob("*.py"))
                for name in time_defaults(parsed(path))}
    leaks = sorted(defaults - TIME_DEFAULT_ALLOWED)
    assert not leaks, f"`time` must be passed in, not defaulted (Kafka passes it everywhere): {leaks}"
    gone = sorted(TIME_DEFAULT_ALLOWED - defaults)
    assert not gone, f"no longer default `time`: take them off TIME_DEFAULT_ALLOWED: {gone}"


def test_the_time_default_finder_sees_positional_keyword_only_and_nested_defaults():
    tree = ast.parse(
        "class Log:\n"
        "    def __init__(self, dir, time=SYSTEM): ...\n"
        "    def roll(self, *, time=None): ...\n"
        "    def read(self, time): ...\n"
        "def outer(time):\n"
        "    def inner(x, time=SYSTEM): ...\n"
        "lambda time=None: time\n")
    assert time_defaults(tree) == ["Log.__init__", "Log.roll", "outer.inner", "<lambda>"]
