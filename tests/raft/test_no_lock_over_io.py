"""No lock in kafka/raft/ is held across I/O (issue 39): read with ast, no imports run.

The raft thread alone steps the core and holds no lock while it writes and fsyncs the metadata log,
the quorum-state file and the snapshots. The locks that remain guard memory shared with other threads
(the BatchAccumulator's offsets and waiting records, the driver's queues), so another thread waits on
one for a few list operations at most, never for a disk or a socket.

The check, simple and honest about its reach: in every `with <lock>:` block of kafka/raft/ (a context
whose expression names a lock or a condition), no call may be one of the I/O methods below, nor any
call on the log, the quorum-state store, the channel or the raft client; calls to the same class's
own methods (`self._complete_current()`) are followed into their bodies. A lock is only ever taken
with `with` (no `acquire()`), and never re-entrant (an RLock is how a step used to hold one).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.source_tree import KAFKA, parsed

RAFT = KAFKA / "raft"
LOCK_NAME = re.compile(r"lock|cond|mutex", re.IGNORECASE)
IO_METHODS = {"write", "writelines", "flush", "fsync", "fdatasync", "sync", "open", "close", "unlink",
              "rename",
              "replace", "truncate", "append_as_leader", "append_as_follower", "truncate_to",
              "truncate_fully_and_start_at", "write_election_state", "read_election_state",
              "create_new_snapshot",
              "store_snapshot", "freeze", "delete_before_snapshot", "maybe_write_snapshot", "send", "sendall",
              "poll", "wakeup", "handle_inbound", "step", "read"}
IO_OWNERS = {"log", "store", "quorum_state_store", "channel", "client", "os", "snapshots"}


def raft_files() -> list[Path]:
    return sorted(RAFT.glob("*.py"))


def is_lock(item: ast.withitem) -> bool:
    return bool(LOCK_NAME.search(ast.unparse(item.context_expr)))


def call_name(call: ast.Call) -> tuple[str | None, str | None]:
    """(the object called on, if a name or self.<name>; the function's name)."""
    func = call.func
    if isinstance(func, ast.Name):
        return None, func.id
    if isinstance(func, ast.Attribute):
        owner = func.value
        if isinstance(owner, ast.Name):
            return owner.id, func.attr
        if isinstance(owner, ast.Attribute) and isinstance(owner.value,
                                                           ast.Name) and owner.value.id == "self":
            return owner.attr, func.attr
        return None, func.attr
    return None, None


def methods_by_class(tree: ast.Module) -> dict[ast.FunctionDef, dict[str, ast.FunctionDef]]:
    """Each function of a class, mapped to its class's methods by name (to follow `self.<method>()`)."""
    found: dict = {}
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
        for f in methods.values():
            found[f] = methods
    return found


def io_under(body: list[ast.stmt], methods: dict[str, ast.FunctionDef], seen: set[str]) -> list[str]:
    """The I/O calls in `body`, following calls to the same class's methods."""
    found = []
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if not isinstance(node, ast.Call):
            continue
        owner, name = call_name(node)
        if name in IO_METHODS or owner in IO_OWNERS:
            found.append(f"line {node.lineno}: {ast.unparse(node.func)}()")
        elif owner == "self" and name in methods and name not in seen:
            seen.add(name)
            found += [f"{name} -> {f}" for f in io_under(methods[name].body, methods, seen)]
    return found


def lock_blocks(path: Path) -> list[tuple[ast.With, dict[str, ast.FunctionDef]]]:
    tree = parsed(path)
    classes = methods_by_class(tree)
    blocks = []
    for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        for node in ast.walk(function):
            if isinstance(node, ast.With) and any(is_lock(item) for item in node.items):
                blocks.append((node, classes.get(function, {})))
    return blocks


def test_no_lock_in_kafka_raft_is_held_across_a_write_or_an_fsync():
    offences = {}
    for path in raft_files():
        for block, methods in lock_blocks(path):
            found = io_under(block.body, methods, set())
            if found:
                offences[f"{path.name}:{block.lineno}"] = found
    assert not offences, f"a lock held across I/O: {offences}"


def test_the_check_sees_the_locks_that_exist():
    """Not vacuous: the accumulator's and the driver's locks are the blocks checked above."""
    with_locks = {path.name for path in raft_files() if lock_blocks(path)}
    assert {"batch_accumulator.py", "kafka_raft_client_driver.py"} <= with_locks


def test_locks_are_taken_only_with_with_and_none_is_reentrant():
    for path in raft_files():
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Call):
                owner, name = call_name(node)
                where = f"{path.name}:{node.lineno}"
                assert name != "acquire", f"{where}: take a lock with `with`, so it is checked"
                assert name != "RLock", f"{where}: a re-entrant lock (held over a step?)"


def test_the_check_catches_a_lock_held_over_a_flush():
    """The check itself, on the shape the driver had: a step under its lock, the log flushed inside."""
    tree = ast.parse(
        "class Driver:\n"
        "    def step(self):\n"
        "        with self.lock:\n"
        "            self._append()\n"
        "    def _append(self):\n"
        "        self.log.append_as_leader(b'', 1)\n")
    methods = methods_by_class(tree)
    function = next(f for f in methods if f.name == "step")
    block = next(n for n in ast.walk(function) if isinstance(n, ast.With))
    assert io_under(block.body, methods[function],
                    set()) == ["_append -> line 6: self.log.append_as_leader()"]
