"""The package's shape: no import circles (imports inside functions counted), few top-level modules, no test code."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "ocr_pipeline"
MAX_TOP_LEVEL_MODULES = 8


def _cycles(graph: grimp.ImportGraph, root: str = "ocr_pipeline") -> list[list[str]]:
    """Strongly connected components of more than one module, or a module importing itself (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.find_modules_directly_imported_by(node)):
            if not nxt.startswith(root):
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph.modules):
        if module.startswith(root) and module not in index:
            visit(module)
    return found


def test_no_import_circles() -> None:
    graph = grimp.build_graph("ocr_pipeline", include_external_packages=False)
    assert _cycles(graph) == []


def test_cycle_finder_sees_a_circle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The check above must be able to fail: a two-module circle through an import inside a function.
    pkg = tmp_path / "circle_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from circle_pkg import b\n")
    (pkg / "b.py").write_text("import circle_pkg.a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("circle_pkg", include_external_packages=False)
    assert _cycles(graph, "circle_pkg") == [["circle_pkg.a", "circle_pkg.b"]]


def test_few_modules_at_the_top() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


def test_no_module_names_twice() -> None:
    # One name, one meaning: no two modules anywhere in the package share a file name (packages' __init__ aside).
    names = [p.stem for p in PACKAGE.rglob("*.py") if p.name != "__init__.py"]
    assert sorted({n for n in names if names.count(n) > 1}) == []


def test_lazy_imports_say_why() -> None:
    # An import inside a function is allowed only to save start-up time or for an optional dependency,
    # and the comment right above it says which.
    unexplained = []
    for path in PACKAGE.rglob("*.py"):
        source = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(source))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    above = " ".join(source[max(0, inner.lineno - 4) : inner.lineno - 1]).lower()
                    if "start-up" not in above and "optional" not in above:
                        unexplained.append(f"{path.relative_to(PACKAGE)}:{inner.lineno}")
    assert unexplained == []
