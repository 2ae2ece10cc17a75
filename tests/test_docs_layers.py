"""The package map the pages draw is the one import-linter enforces (issue 45 item 3b).

The layers contract in pyproject.toml orders the packages of kafka/ top to bottom. diagrams/layers.mmd
(one subgraph per package), the README's package map and docs/architecture.md's layers table must name
every package under kafka/, in the contract's order and, in the tables, on the contract's layer. A
package outside the contract must be named in OUTSIDE with the reason, so a new package cannot slip past
both the contract and the pages. Read from files only: fast and offline.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Packages the layers contract leaves out, and why; forbidden contracts in pyproject.toml place them.
OUTSIDE: dict[str, str] = {}
TABLE_ROW = re.compile(r"^\| (?P<layer>\d+|outside) \| (?P<packages>[^|]+) \|")


def contract_layers() -> list[list[str]]:
    """The layers contract's packages, top layer first: [["tools", "__main__"], ["server"], ...]."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [contract] = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return [[name.strip().removeprefix("kafka.") for name in layer.split("|")]
            for layer in contract["layers"]]


def layer_of() -> dict[str, int]:
    return {package: i + 1 for i, layer in enumerate(contract_layers()) for package in layer}


def packages_under_kafka() -> set[str]:
    kafka = ROOT / "kafka"
    return {p.parent.name for p in kafka.glob("*/__init__.py")} | {"__main__"}


def named(text: str) -> list[str]:
    return re.findall(r"kafka/(\w+)", text)


def diagram_packages() -> list[str]:
    """The packages of diagrams/layers.mmd's subgraphs, in the order they are drawn."""
    source = (ROOT / "diagrams" / "layers.mmd").read_text(encoding="utf-8")
    return [p for label in re.findall(r'^\s*subgraph \w+\["([^"]+)"\]', source, re.M) for p in named(label)]


def table(page: Path, section: str) -> list[tuple[str, list[str]]]:
    """(layer cell, packages named in the package cell) for each row of the `## section` table."""
    text = page.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    rows = (TABLE_ROW.match(line) for line in body.splitlines())
    return [(m.group("layer"), named(m.group("packages"))) for m in rows if m]


def order_problems(drawn: list[str]) -> list[str]:
    layers = layer_of()
    problems = [f"{p} is not a package of kafka/ in the contract or OUTSIDE" for p in drawn
                if p not in layers and p not in OUTSIDE]
    problems += [f"missing {p}" for p in sorted((set(layers) | set(OUTSIDE)) - set(drawn))]
    in_contract = [p for p in drawn if p in layers]
    problems += [f"{b} (layer {layers[b]}) drawn after {a} (layer {layers[a]})"
                 for a, b in zip(in_contract, in_contract[1:], strict=False) if layers[b] < layers[a]]
    return problems


def test_every_package_is_in_the_layers_contract_or_said_to_be_outside():
    layers = layer_of()
    assert not set(layers) & set(OUTSIDE), "a package is both in the contract and OUTSIDE"
    assert packages_under_kafka() == set(layers) | set(OUTSIDE), (
        "kafka/ has packages the layers contract does not order (add them to pyproject.toml, or to OUTSIDE "
        f"with the reason): {sorted(packages_under_kafka() - set(layers) - set(OUTSIDE))}; the contract "
        f"names missing ones: {sorted(set(layers) - packages_under_kafka())}")


def test_the_layers_diagram_draws_every_package_in_the_contracts_order():
    problems = order_problems(diagram_packages())
    assert not problems, "diagrams/layers.mmd:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize(("page", "section"), [("README.md", "The package map"),
                                               ("docs/architecture.md", "The layers")])
def test_the_package_tables_name_every_package_on_its_layer(page, section):
    rows = table(ROOT / page, section)
    layers = layer_of()
    problems = order_problems([p for _, packages in rows for p in packages])
    for layer, packages in rows:
        for p in packages:
            expected = str(layers[p]) if p in layers else "outside"
            if layer != expected:
                problems.append(f"{p} is on layer {expected}, the table says {layer}")
    assert not problems, f"{page}, {section}:\n  " + "\n  ".join(problems)


def test_the_checks_catch_a_package_out_of_order():
    assert order_problems(["tools", "log", "server"])  # server above log, drawn below it
    assert any("missing" in p for p in order_problems(["tools"]))
