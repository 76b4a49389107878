"""The views share what they share in the open: no view module (`bot/render/`,
`bot/webapp/view.py`, `bot/chart.py`) imports another module's private (``_name``) function.
import-linter's contracts are about modules, not names, hence this test."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VIEWS = [
    *sorted((ROOT / "bot" / "render").glob("*.py")),
    ROOT / "bot" / "webapp" / "view.py",
    ROOT / "bot" / "chart.py",
]


def private_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bot"):
            found += [
                f"{node.module}.{alias.name}"
                for alias in node.names
                if alias.name.startswith("_") and not alias.name.startswith("__")
            ]
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            # render.common._name(...) reached through the module
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in ("render", "bot", "page_view"):
                found.append(ast.unparse(node))
    return found


def test_no_view_imports_a_private_function_of_another() -> None:
    offenders = {
        str(path.relative_to(ROOT)): names for path in VIEWS if (names := private_imports(path))
    }
    assert offenders == {}


def test_the_check_sees_a_private_import(tmp_path: Path) -> None:
    source = "from bot.render.tables import _status as status\nrender.common._name(s, 1)\n"
    probe = tmp_path / "view.py"
    probe.write_text(source, encoding="utf-8")
    assert private_imports(probe) == ["bot.render.tables._status", "render.common._name"]
