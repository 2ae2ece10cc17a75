"""The docs stay true to the code.

Every `kafka/...` (or tests/, diagrams/, config/...) path, `ClassName.method`, `ClassName(...)`, `function()`,
`module.function` and bare `ClassName` written in backticks in docs/*.md, the labs and README.md must exist in
the code, so renaming a function without updating the page that teaches it fails here. A bare `ClassName` may
also be a name the code spells in a string (an API, a metric, a record type), a class of the tests, or one of
OTHER_PROJECTS' names that a page quotes as Kafka's, Spark's or librdkafka's. Diagrams must start like Mermaid
diagrams, the diagrams embedded in docs/architecture.md must be the ones in diagrams/, and
docs/configuration.md must list exactly the keys the code accepts. Fast and offline: the code is read with
`ast`, never imported (except the two config tables).
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
from functools import cache
from pathlib import Path

import pytest

from tests.source_tree import parsed

ROOT = Path(__file__).resolve().parent.parent
# the course labs too
DOCS = (sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "docs" / "labs").glob("*.md"))
        + [ROOT / "README.md"])
DIAGRAMS = sorted((ROOT / "diagrams").glob("*.mmd"))

# Diagrams that a page embeds verbatim: page -> files under diagrams/.
EMBEDDED = {"architecture.md": ["layers.mmd", "request_lifecycle.mmd", "limits.mmd"],
            "dynamic_configs.md": ["dynamic_configs.mmd"],
            "ecosystem.md": ["ecosystem_connect.mmd", "ecosystem_streams.mmd"],
            "features.md": ["features.mmd"],
            "fetch_sessions.md": ["fetch_session.mmd"],
            "groups.md": ["coordinator_runtime.mmd", "group_states.mmd", "rebalance.mmd",
                          "consumer_group_protocol.mmd",
                          "group_migration.mmd", "streams_group.mmd"],
            "kraft.md": ["kraft_quorum.mmd", "kraft_create_topic.mmd", "kraft_split_cluster.mmd",
                         "kraft_pre_vote.mmd",
                         "kraft_dynamic_voters.mmd"],
            "replication.md": ["replication_produce.mmd", "replication_failover.mmd", "replication_elr.mmd",
                               "replication_diverging_epoch.mmd",
                               "partition_reassignment.mmd", "nemesis.mmd"],
            "acls.md": ["authorizer.mmd"],
            "observability.md": ["observability.mmd"],
            "client_metrics.md": ["client_metrics.mmd"],
            "quotas.md": ["quotas.mmd"],
            "security.md": ["tls_handshake.mmd", "sasl_ssl_connection.mmd", "secure_cluster.mmd"],
            "tiered_storage.md": ["tiered_storage_fetch.mmd"],
            "share_groups.md": ["share_group.mmd", "share_record_lifecycle.mmd", "share_coordinator.mmd",
                                "share_dlq.mmd"],
            "spark.md": ["spark.mmd", "spark_cluster.mmd"],
            "transactions.md": ["idempotent_produce.mmd", "transaction.mmd", "transaction_v2.mmd"]}

MERMAID_KEYWORDS = {
    "flowchart", "graph", "sequenceDiagram", "classDiagram", "classDiagram-v2", "stateDiagram",
    "stateDiagram-v2", "erDiagram", "gantt", "pie", "journey", "gitGraph", "mindmap", "timeline",
    "quadrantChart", "requirementDiagram", "C4Context", "C4Container", "C4Component", "C4Dynamic",
    "sankey-beta", "xychart-beta", "block-beta", "packet-beta", "architecture-beta", "kanban",
}

FENCED = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
MERMAID_BLOCK = re.compile(r"^```mermaid[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
SPAN = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")

PATH_REF = re.compile(r"^(?:kafka|tests|diagrams|docs|config|bench)/[\w./-]*$")
# What the build makes and a fresh clone lacks (the root .gitignore's own directories: tests/jvm/target,
# which `make test` fills): a page may name a path under one before it exists, where the tree has its parent.
GENERATED = [line.strip("/") for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
             if line.startswith("/") and line.endswith("/")]
# Python names are snake_case; a camelCase member (`RequestContext.parseRequest`) is a JVM name: not checked.
MEMBER_REF = re.compile(r"^([A-Z]\w*)\.([a-z_][a-z0-9_]*)(?:\(.*\))?$")
CLASS_CALL_REF = re.compile(r"^([A-Z]\w*)\(")
CALL_REF = re.compile(r"^((?:[a-z_]\w*\.)*)([a-z_][a-z0-9_]*)\(")
# A bare class name: two capitalised words or more (`ReplicaManager`), not an API's one word (`Fetch`).
CAMEL_REF = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+$")
# `module.name`: checked when `module` is a module of kafka/ with a name no config key or variable has
# (`request_channel.deferred_wakeups`: an underscore), so `log.dirs` and `partition.high_watermark` are
# left alone; `module.py` must be a file of kafka/.
WORD = re.compile(r"[A-Za-z_]\w*")
MODULE_REF = re.compile(r"^([a-z_][a-z0-9_]*)\.([A-Za-z_]\w*)$")
BESIDE_THE_CLONE = {"bench.py"}  # the shared benchmark harness, ../shared/bench/bench.py: not in a clone
STUDENT_SCRIPT = re.compile(r"^lab\d\d_\w+\.py$")  # a lab's own script, which the student writes
# Names of other projects that the pages quote as theirs, not ours (the page says "Kafka's ..."). A class of
# our own that was renamed belongs fixed in the page, not here.
OTHER_PROJECTS = {
    # Apache Kafka's Java classes, which a page maps onto ours or says we do without
    "AclCommand", "AuthorizerNotReadyException", "BrokerServer", "CleanShutdownFileHandler", "CompactArrayOf",
    "ConsumerGroupCommand", "ConsumerPerformance", "ConsumerProtocol", "ControllerMetadataMetrics",
    "CoordinatorBatch", "DefaultRecordBatch", "DelayedJoin", "DelayedOperationKey", "DumpLogSegments",
    "InitialDelayedJoin", "KafkaRaftManager", "KafkaRaftServer", "LogValidator", "MemoryRecords",
    "MetadataQuorumCommand", "MetadataRecordSerde", "MetricsReporter", "NetworkSend",
    "OffsetOutOfRangeException",
    "RecordTooLargeException", "ResponseHeader", "SkimpyOffsetMap", "StorageTool", "StripedReplicaPlacer",
    "TooManyConnectionsException", "UnknownTopicOrPartitionException", "UtilsTest", "VerificationGuard",
    # Kafka's protocol and ACL names: a Fetch response's field, a resource type, a request's metric label
    "DivergingEpoch", "DelegationToken", "FetchFollower",
    # Spark's (ReadLimit kinds, the offset log's writer), librdkafka's (a delivery status), Python's main
    # thread
    "ReadAllAvailable", "ReadMaxRows", "ReadMinRows", "KafkaSourceInitialOffsetWriter", "MsgNotPersisted",
    "MainThread",
}


# ---------------------------------------------------------------------------------- the code, indexed


class CodeIndex:
    """Classes (with their members and bases), every function name and each module's top-level names
    defined under kafka/; the words of its string literals; the classes of the tests."""

    def __init__(self, package: Path) -> None:
        self.classes: dict[str, list[tuple[set[str], list[str]]]] = {}
        self.functions: set[str] = set()
        self.modules: dict[str, set[str]] = {}  # file stem -> its top-level names
        self.words: set[str] = set()  # in string literals other than docstrings: API, metric, record names
        for path in sorted(package.rglob("*.py")):
            tree = parsed(path)
            self.modules.setdefault(path.stem, set()).update(_top_level_names(tree))
            docstrings, strings = {_docstring_id(tree)}, []
            for node in ast.walk(tree):  # one walk: the package is 400-odd files
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    self.functions.add(node.name)
                    docstrings.add(_docstring_id(node))
                elif isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, []).append((_members(node), _bases(node)))
                    docstrings.add(_docstring_id(node))
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    strings.append(node)
            self.words.update(word for node in strings if id(node) not in docstrings
                              for word in WORD.findall(node.value))
        self.test_classes = _test_classes(package.parent / "tests")

    def knows_name(self, name: str) -> bool:
        """A bare `ClassName` in a page: ours, the tests', a name the code spells, or another project's."""
        return (name in self.classes or name in self.test_classes or name in self.words
                or hasattr(builtins, name) or name in OTHER_PROJECTS)

    def has_member(self, class_name: str, member: str) -> bool:
        """`member` is defined in some class called `class_name`, or in one of its bases."""
        seen: set[str] = set()
        todo = [class_name]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for members, bases in self.classes.get(name, []):
                if member in members:
                    return True
                todo.extend(bases)
        return False


def _members(cls: ast.ClassDef) -> set[str]:
    names: set[str] = set()
    for item in cls.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(item.name)
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
        elif isinstance(item, ast.Assign):
            names.update(t.id for t in item.targets if isinstance(t, ast.Name))
    for node in ast.walk(cls):  # self.x = ... in any method
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            for t in ast.walk(target):
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    names.add(t.attr)
    return names


def _top_level_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _docstring_id(node: ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """id() of the node's docstring constant (0 if it has none): its words are prose, not names."""
    first = node.body[0] if node.body else None
    return id(first.value) if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) else 0


def _test_classes(tests: Path) -> set[str]:
    """The classes of tests/: Python helpers (`InProcessBroker`) and the JVM tier's Java scenarios."""
    return {name for path in [*tests.rglob("*.py"), *tests.rglob("*.java")] if "target" not in path.parts
            for name in re.findall(r"^[ \t]*(?:public |final |static )*class (\w+)",
                                   path.read_text(encoding="utf-8"), re.M)}


def _bases(cls: ast.ClassDef) -> list[str]:
    names = []
    for base in cls.bases:
        if isinstance(base, ast.Subscript):  # Generic[T], Protocol[T]
            base = base.value
        if isinstance(base, ast.Name):
            names.append(base.id)
        elif isinstance(base, ast.Attribute):
            names.append(base.attr)
    return names


@cache
def repo_file_names() -> set[str]:
    """The names of the Python files of kafka/, tests/ and bench/: what a bare `name.py` may be."""
    return {p.name for top in ("kafka", "tests", "bench") for p in (ROOT / top).rglob("*.py")}


@cache
def code_index() -> CodeIndex:
    return CodeIndex(ROOT / "kafka")


# ---------------------------------------------------------------------------------- the docs, read


def inline_spans(text: str) -> list[str]:
    """The `code spans` of a Markdown page, outside fenced blocks."""
    return [span.strip() for span in SPAN.findall(FENCED.sub("", text))]


def broken_references(text: str, index: CodeIndex) -> list[str]:
    """Every span that names a file, class member, class or function the code does not have."""
    problems = []
    for span in inline_spans(text):
        if PATH_REF.match(span):
            path = re.sub(r":\d+$", "", span)
            if not (ROOT / path).exists() and not made_by_the_build(path):
                problems.append(f"`{span}`: no such file or directory")
        elif match := MEMBER_REF.match(span):
            class_name, member = match.groups()
            if class_name not in index.classes:
                problems.append(f"`{span}`: no class {class_name} under kafka/")
            elif not index.has_member(class_name, member):
                problems.append(f"`{span}`: class {class_name} has no {member}")
        elif match := CLASS_CALL_REF.match(span):
            if match.group(1) not in index.classes:
                problems.append(f"`{span}`: no class {match.group(1)} under kafka/")
        elif match := CALL_REF.match(span):
            owner, name = match.group(1), match.group(2)
            first = owner.split(".", 1)[0]
            if first in sys.stdlib_module_names or (not owner and (hasattr(builtins, name)
                                                                  or name in sys.stdlib_module_names)):
                continue  # os.pread(...), min(...), array(...): not ours
            if name not in index.functions:
                problems.append(f"`{span}`: no function {name} under kafka/")
        elif CAMEL_REF.match(span):
            if not index.knows_name(span):
                problems.append(f"`{span}`: no class {span} under kafka/ "
                                "(nor a name the code or tests spell)")
        elif (match := MODULE_REF.match(span)) and match.group(2) == "py":
            known = span in repo_file_names() or STUDENT_SCRIPT.match(span) or span in BESIDE_THE_CLONE
            if not known:
                problems.append(f"`{span}`: no file {span} in the repository")
        elif (match := MODULE_REF.match(span)) and "_" in match.group(1) and match.group(1) in index.modules:
            module, name = match.groups()
            if name not in index.modules[module]:
                problems.append(f"`{span}`: module {module} defines no {name}")
    return problems


def made_by_the_build(path: str) -> bool:
    """`path` lies in a directory the build makes (GENERATED), and the tree holds where it goes: the same
    answer before `make test` as after it, so a fresh clone's quick loop passes."""
    return any((path == made or path.startswith(made + "/")) and (ROOT / made).parent.is_dir()
               for made in GENERATED)


def github_anchor(heading: str) -> str:
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


def broken_links(page: Path) -> list[str]:
    problems = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", target):
            continue  # http(s), mailto: not checked offline
        path_part, _, anchor = target.partition("#")
        linked = (page.parent / path_part).resolve() if path_part else page
        if not linked.exists():
            problems.append(f"link {target}: {linked} does not exist")
        elif anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", FENCED.sub("", linked.read_text(encoding="utf-8")), re.M)
            if anchor not in {github_anchor(h) for h in headings}:
                problems.append(f"link {target}: no heading #{anchor} in {linked.name}")
    return problems


def mermaid_problem(source: str) -> str | None:
    """None if `source` looks like a Mermaid diagram: its first real line names a diagram type."""
    lines = source.splitlines()
    i = 0
    if lines and lines[0].strip() == "---":  # front matter
        i = next((j for j in range(1, len(lines)) if lines[j].strip() == "---"), len(lines)) + 1
    for line in lines[i:]:
        stripped = line.strip()
        if not stripped or stripped.startswith("%%"):
            continue
        keyword = stripped.split()[0].rstrip(":;")
        return None if keyword in MERMAID_KEYWORDS else f"starts with {keyword!r}, not a Mermaid diagram type"
    return "empty"


# ---------------------------------------------------------------------------------- the tests


def test_there_are_docs_and_diagrams():
    assert {p.name for p in DOCS} >= {"architecture.md", "configuration.md", "purgatory.md", "storage.md"}
    assert {p.name for p in DOCS if p.parent.name == "labs"} >= {"README.md", "01-wire-protocol.md"}
    assert {p.name for p in DIAGRAMS} >= {"layers.mmd", "request_lifecycle.mmd", "purgatory.mmd"}


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_code_named_in_docs_exists(page):
    problems = broken_references(page.read_text(encoding="utf-8"), code_index())
    assert not problems, f"{page.name} names code that does not exist:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_in_docs_resolve(page):
    problems = broken_links(page)
    assert not problems, f"{page.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_link_the_seeds_public_pages_not_files_a_clone_lacks(page):
    """The seed texts sit beside the team's checkout (../shared/seeds/), not in a student's clone: a
    page links each text's public page instead (docs/labs/README.md lists them)."""
    text = page.read_text(encoding="utf-8")
    assert "shared/seeds" not in text, f"{page.name} points at ../shared/seeds/, which a clone does not have"


@pytest.mark.parametrize("diagram", DIAGRAMS, ids=lambda p: p.name)
def test_diagram_files_are_mermaid(diagram):
    source = diagram.read_text(encoding="utf-8")
    assert source.strip(), f"{diagram.name} is empty"
    problem = mermaid_problem(source)
    assert problem is None, f"{diagram.name}: {problem}"


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_mermaid_blocks_in_docs_are_mermaid(page):
    for n, block in enumerate(MERMAID_BLOCK.findall(page.read_text(encoding="utf-8")), 1):
        problem = mermaid_problem(block)
        assert problem is None, f"{page.name}, mermaid block {n}: {problem}"


@pytest.mark.parametrize("page_name", sorted(EMBEDDED))
def test_embedded_diagrams_match_their_files(page_name):
    blocks = MERMAID_BLOCK.findall((ROOT / "docs" / page_name).read_text(encoding="utf-8"))
    for diagram in EMBEDDED[page_name]:
        source = (ROOT / "diagrams" / diagram).read_text(encoding="utf-8")
        assert any(block.strip() == source.strip() for block in blocks), (
            f"docs/{page_name} should embed diagrams/{diagram} verbatim in a ```mermaid block")


def _table_rows(page: str, section: str) -> dict[str, list[str]]:
    """First-column `key` -> the other cells, for the table rows of one `## section` of a page."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in body.splitlines():
        if match := re.match(r"^\| `([\w.-]+)` \|(.*)\|\s*$", line):
            rows[match.group(1)] = [cell.strip() for cell in match.group(2).split("|")]
    return rows


def test_configuration_documents_only_real_broker_keys_with_their_defaults():
    from kafka.server.kafka_config import CONFIG_KEYS

    for name, cells in _table_rows("configuration.md", "Broker keys").items():
        assert name in CONFIG_KEYS, f"docs/configuration.md lists {name}, which is not in _KEYS"
        key = CONFIG_KEYS[name]
        expected = "(none)" if key.default is None else "(empty)" if key.default == "" else f"`{key.default}`"
        assert cells[0] == expected, f"{name}: the docs say default {cells[0]}, the code {expected}"


def test_configuration_documents_every_broker_key():
    from kafka.server.kafka_config import CONFIG_KEYS

    missing = sorted(set(CONFIG_KEYS) - set(_table_rows("configuration.md", "Broker keys")))
    assert not missing, f"add these keys of _KEYS to the table in docs/configuration.md: {missing}"


def test_configuration_documents_every_topic_config_with_its_default():
    from kafka.log.log_config import TOPIC_CONFIGS, LogConfig

    rows = _table_rows("configuration.md", "Topic configs")
    assert sorted(rows) == sorted(TOPIC_CONFIGS), (
        "docs/configuration.md and TOPIC_CONFIGS list different keys")
    defaults = LogConfig().to_props()
    for name, cells in rows.items():
        documented = cells[1].split()[0] if cells[1] else ""
        assert documented == defaults[name], (
            f"{name}: the docs say default {documented}, the code {defaults[name]}")


def test_the_checks_catch_a_renamed_function():
    """The reference check itself: a wrong name in a page is reported, a right one is not."""
    index = code_index()
    good = "`KafkaApis.handle_produce_request` in `kafka/server/kafka_apis.py` calls `append_records(...)`"
    assert broken_references(good, index) == []
    bad = ("`KafkaApis.handle_produce` `kafka/server/kafka_api.py` `append_record(x)` `NoSuchClass.run` "
           "`NoSuchClass(1)`\n```\n`KafkaApis.inside_a_fence`\n```")
    assert len(broken_references(bad, index)) == 5
    assert broken_references("`DelayedFetch.force_complete` `os.pread(fd, n)` `min(1, 2)`", index) == []
    assert broken_references("`ReplicaManager` `InProcessBroker` `TotalTimeMs` `ValueError` `log.dirs`",
                             index) == []
    assert broken_references("`request_channel.deferred_wakeups` `LogValidator`", index) == []
    assert len(broken_references("`ReplicaManagr` `request_channel.deferred_wakeup` `kafka_apiss.py`",
                                 index)) == 3
    assert broken_references("`kafka_apis.py` `test_docs.py` `lab04_wheel.py`", index) == []
    assert broken_references("`tests/jvm/target` `tests/jvm/target/classpath-tools.txt`", index) == []
    assert len(broken_references("`tests/jvm/targets` `tests/jvmm/target/classpath-tools.txt`", index)) == 2
    assert mermaid_problem("%% comment\nsequenceDiagram\n  A->>B: hi") is None
    assert mermaid_problem("sequence\n  A->>B: hi") is not None
