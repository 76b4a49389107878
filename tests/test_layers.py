"""The product's imports form no cycle, and the handlers reach the storage only through the
service.

import-linter (pyproject.toml) checks the layers and the cycles between the modules and
packages of each package (`acyclic_siblings`); what it does not see is checked here: a cycle
through a package's own ``__init__`` (``bot.handlers`` importing ``bot.handlers.common``,
which imported ``bot.handlers``), and the handlers reading through ``rt.storage``, which is an
attribute, not an import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

PRODUCT = ("bot", "rules", "storage")
ROOT = Path(__file__).resolve().parent.parent


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without
    recursion), each sorted, the lists sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    imported = sorted(graph.find_modules_directly_imported_by(target))
                    work.append((target, iter(imported)))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return sorted(cycles)


def test_no_module_imports_itself_through_others() -> None:
    graph = grimp.build_graph(*PRODUCT, include_external_packages=False)
    assert import_cycles(graph) == []


def test_a_cycle_is_found() -> None:
    """The check above finds what it is for: a package and a module of it importing each
    other, and a longer loop."""
    graph = grimp.ImportGraph()
    for module in ("p", "p.a", "p.b", "p.c", "q"):
        graph.add_module(module)
    graph.add_import(importer="p", imported="p.a")
    graph.add_import(importer="p.a", imported="p")
    graph.add_import(importer="p.b", imported="p.c")
    graph.add_import(importer="p.c", imported="q")
    graph.add_import(importer="q", imported="p.b")
    assert import_cycles(graph) == [["p", "p.a"], ["p.b", "p.c", "q"]]


def test_the_handlers_never_touch_the_storage() -> None:
    """No handler reads or writes through ``….storage`` (the runtime's is for the wiring and
    bot.app): they go through the service (`bot.service_reads`, `bot.service_settings`)."""
    found = []
    for path in sorted((ROOT / "bot" / "handlers").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [
            f"{path.relative_to(ROOT)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr == "storage" and not _wiring(node)
        ]
    assert found == []


def _wiring(node: ast.Attribute) -> bool:
    """The Runtime keeping the storage of the service it was given, for the delivery, the
    timers and bot.app: ``self.storage = service.storage``."""
    taken = isinstance(node.value, ast.Name) and node.value.id == "service"
    return taken or isinstance(node.ctx, ast.Store)
