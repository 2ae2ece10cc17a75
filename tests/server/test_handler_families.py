"""The handler families stand on their own (issue 39, item 1): KafkaApis dispatches to StorageApis,
GroupApis, AdminApis and the others, and none of them reaches back into it. KafkaServer builds
each family with the collaborators it uses; only it, and kafka_apis.py itself, know KafkaApis.

Read with ast, as tests/test_structure.py reads the tree: no import runs. A docstring may say
"KafkaApis dispatches here"; code may not name the class, import its module, or take an `apis`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.source_tree import KAFKA, parsed

KAFKA_APIS_MODULE = "kafka.server.kafka_apis"
WHO_MAY_KNOW_KAFKA_APIS = {"kafka/server/kafka_apis.py", "kafka/server/kafka_server.py"}


def relative(path: Path) -> str:
    return path.relative_to(KAFKA.parent).as_posix()


def family_files() -> list[Path]:
    """Every kafka/server/*_apis.py but KafkaApis' own: the families, and ControllerApis."""
    return sorted(p for p in (KAFKA / "server").glob("*_apis.py") if p.name != "kafka_apis.py")


def reaches_kafka_apis(tree: ast.Module) -> list[str]:
    """Where code (not a docstring) imports kafka.server.kafka_apis or names KafkaApis."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            names = {f"{node.module}.{alias.name}" for alias in node.names} | {node.module}
            if any(n == KAFKA_APIS_MODULE or n.startswith(KAFKA_APIS_MODULE + ".") for n in names):
                found.append(f"line {node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name.startswith(KAFKA_APIS_MODULE)]
        elif isinstance(node, ast.Name) and node.id == "KafkaApis" or \
                isinstance(node, ast.Attribute) and node.attr == "KafkaApis":
            found.append(f"line {node.lineno}: KafkaApis")
    return found


def holds_apis(tree: ast.Module) -> list[str]:
    """A class whose __init__ takes a parameter `apis`, or code that sets or reads `self.apis`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            arguments = node.args
            names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
            if "apis" in names:
                found.append(f"line {node.lineno}: __init__(..., apis, ...)")
        elif isinstance(node, ast.Attribute) and node.attr == "apis" and isinstance(node.value, ast.Name) \
                and node.value.id == "self":
            found.append(f"line {node.lineno}: self.apis")
    return found


def test_only_kafka_server_builds_kafka_apis():
    offenders = {relative(path): where for path in sorted(KAFKA.rglob("*.py"))
                 if relative(path) not in WHO_MAY_KNOW_KAFKA_APIS
                 and ("KafkaApis" in (text := path.read_text()) or "kafka_apis" in text)  # parse only these
                 and (where := reaches_kafka_apis(parsed(path)))}
    assert offenders == {}, "only KafkaServer builds KafkaApis, and no family reaches back into it"


@pytest.mark.parametrize("path", family_files(), ids=lambda p: p.name)
def test_a_family_is_built_with_its_collaborators_not_with_kafka_apis(path):
    assert holds_apis(parsed(path)) == [], f"{path.name}: take the collaborators, not KafkaApis"


def test_the_families_are_all_found():
    assert {p.name for p in family_files()} >= {
        "storage_apis.py", "group_apis.py", "consumer_group_apis.py", "transaction_apis.py", "admin_apis.py",
        "client_quota_apis.py", "acl_apis.py", "sasl_apis.py", "controller_apis.py"}


def test_the_checks_catch_a_family_that_reaches_back():
    reaching = ast.parse('"""KafkaApis dispatches here."""\n'
                         "from kafka.server.kafka_apis import KafkaApis\n"
                         "class StorageApis:\n"
                         "    def __init__(self, apis) -> None:\n"
                         "        self.apis = apis\n"
                         "    def handle(self, request):\n"
                         "        self.apis.send_response(request, {})\n")
    assert reaches_kafka_apis(reaching) == ["line 2: from kafka.server.kafka_apis import ..."]
    assert holds_apis(reaching) == ["line 4: __init__(..., apis, ...)", "line 5: self.apis",
                                    "line 7: self.apis"]
    assert reaches_kafka_apis(ast.parse('"""KafkaApis dispatches here."""\n')) == []
