"""docs/design.md's map of the code and the tree agree: every folder and module has its row, every name is a real path.

As test_cli_docs.py holds docs/cli.md to `--help`, this holds the one map of the code to the repository, so a module
added, moved or removed without its row fails here instead of leaving a newcomer a map that lies.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "ocr_pipeline"
DESIGN = REPO / "docs" / "design.md"
MODULE = re.compile(r"\w+\.py")


def _section(title: str) -> str:
    text = DESIGN.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def _tables(section: str) -> list[list[list[str]]]:
    """Each Markdown table of a section as rows of cells, its header and separator rows left out."""
    tables: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*section.splitlines(), ""]:
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            tables.append(rows[2:])
            rows = []
    return tables


def _code(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _named() -> dict[str, set[str]]:
    """Each folder of the package map (relative to the repository) -> the modules its rows name."""
    named: dict[str, set[str]] = {}
    for folder, _layer, modules in _tables(_section("The package map"))[0]:
        named.setdefault(_code(folder)[0], set()).update(m for m in _code(modules) if MODULE.fullmatch(m))
    return named


def _tree() -> dict[str, set[str]]:
    """Each folder of the package (relative to the repository) -> its modules, __init__.py aside."""
    folders = [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir() and "__pycache__" not in p.parts)]
    return {f"{p.relative_to(REPO)}/": {m.name for m in p.glob("*.py")} - {"__init__.py"} for p in folders}


def test_every_folder_of_the_package_has_a_row_and_every_row_a_folder() -> None:
    named, tree = set(_named()), set(_tree())
    assert named == tree, {"folders without a row": sorted(tree - named), "rows without a folder": sorted(named - tree)}


def test_every_module_is_named_in_its_folders_row_and_nothing_else_is() -> None:
    named, tree = _named(), _tree()
    unnamed = {folder: sorted(tree[folder] - named.get(folder, set())) for folder in tree}
    absent = {folder: sorted(named[folder] - tree.get(folder, set())) for folder in named}
    assert {k: v for k, v in unnamed.items() if v} == {}, "modules the map does not name"
    assert {k: v for k, v in absent.items() if v} == {}, "modules the map names that are not there"


def test_the_paths_a_map_row_names_beside_its_modules_exist() -> None:
    # `k8s/`, `scripts/make_samples.py`, `pdfs/`: found from the row's folder, the package or the repository.
    missing = []
    for folder, _layer, modules in _tables(_section("The package map"))[0]:
        for path in (c for c in _code(modules) if "/" in c and re.fullmatch(r"[\w./]+", c)):
            bases = (REPO / _code(folder)[0], PACKAGE, REPO)
            if not any((base / path).exists() for base in bases):
                missing.append((_code(folder)[0], path))
    assert missing == []


def test_every_folder_beside_the_package_is_mapped() -> None:
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    top = {f"{line.split('/')[0]}/" for line in tracked.splitlines() if "/" in line and not line.startswith(".")}
    beside = {name for row in _tables(_section("The package map"))[1] for name in _code(row[0])}
    assert top - {"ocr_pipeline/"} <= beside, sorted(top - {"ocr_pipeline/"} - beside)
    assert all((REPO / name).is_dir() for name in beside), beside


def test_each_assets_code_and_tests_exist() -> None:
    # The asset table's definitions and stage functions under ocr_pipeline/, its tests under tests/ (globs allowed).
    missing = []
    for row in _tables(_section("Where the code lives"))[0]:
        definition, stage, tests = row[1], row[2], row[4]
        for path in (p.split(":")[0] for p in _code(definition) + _code(stage)):
            if not (PACKAGE / path).is_file():
                missing.append(path)
        missing += [p for p in _code(tests) if not list((REPO / "tests").glob(p))]
    assert missing == []
