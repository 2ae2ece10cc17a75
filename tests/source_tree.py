"""kafka/'s files parsed with ast, each once per test run.

test_structure.py and test_docs.py read the whole package as syntax (never importing it); parsing its
400-odd files takes over a second, which each of their three readers paid again before this cache.
The trees are shared: a reader walks them and must not change them.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

KAFKA = Path(__file__).resolve().parent.parent / "kafka"


@cache
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
