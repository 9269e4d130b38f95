"""benchmarks/README.md stays an index of the live tools: short, one section a tool, no tool without one, and no
path of one machine anywhere under benchmarks/."""

from __future__ import annotations

import re
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
INDEX = BENCHMARKS / "README.md"
# Absolute paths that only hold on one machine: a home, a checkout's mount, a runner's work folder.
MACHINE_PATH = re.compile(r"(?<![\w.])/(?:home|Users|root|work|mnt|check)/\w")


def _tools() -> set[str]:
    return {p.stem for p in BENCHMARKS.glob("*/bench_*.py")}


def _sections() -> set[str]:
    heads = re.findall(r"^### (.+?):", INDEX.read_text(encoding="utf-8"), re.MULTILINE)
    return {name for head in heads for name in re.findall(r"bench_\w+", head)}


def test_the_index_is_at_most_300_lines() -> None:
    assert len(INDEX.read_text(encoding="utf-8").splitlines()) <= 300


def test_every_tool_has_its_section_and_every_section_a_tool() -> None:
    assert _sections() == _tools()


def test_no_script_or_page_holds_a_path_of_one_machine() -> None:
    found = [
        f"{path.relative_to(BENCHMARKS)}:{n}"
        for path in [INDEX, *BENCHMARKS.rglob("*.py")]
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if MACHINE_PATH.search(line)
    ]
    assert found == []
