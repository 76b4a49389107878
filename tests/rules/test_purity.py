"""rules/ imports the standard library only (or rules itself): scanned with ``ast``."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "rules"
FILES = sorted(RULES.glob("*.py"))


def imported_roots(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.extend((node.lineno, alias.name.split(".")[0]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import: inside rules/
                roots.append((node.lineno, "rules"))
            elif node.module:
                roots.append((node.lineno, node.module.split(".")[0]))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr)
            in ("__import__", "import_module")
        ):
            roots.append((node.lineno, "<dynamic import>"))
    return roots


def test_rules_files_found() -> None:
    names = {path.name for path in FILES}
    assert {"cards.py", "game.py", "scoring.py", "variants.py", "randomness.py"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_standard_library_only(path: Path) -> None:
    allowed = set(sys.stdlib_module_names) | {"rules", "__future__"}
    foreign = [f"{path.name}:{line} imports {root}" for line, root in imported_roots(path)]
    foreign = [entry for entry in foreign if entry.rsplit(" ", 1)[1] not in allowed]
    assert foreign == []


def test_scanner_catches_foreign_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os\nimport telegram.ext\nfrom pydantic import BaseModel\nfrom . import cards\n"
        "import importlib\nmod = importlib.import_module('x')\n",
        encoding="utf-8",
    )
    roots = [root for _, root in imported_roots(sample)]
    assert roots == ["os", "telegram", "pydantic", "rules", "importlib", "<dynamic import>"]
