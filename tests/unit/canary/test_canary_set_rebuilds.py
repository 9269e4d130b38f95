"""The shipped canary pages are exactly what scripts/make_canary_set.py builds from tests/support/builders/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ocr_pipeline.canary.bench_set import shipped_tests_file

REPO = Path(__file__).resolve().parents[3]


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_rebuilding_the_canary_set_gives_the_shipped_bytes(tmp_path: Path) -> None:
    # A builder changed for a test or a benchmark must not change the canary's pages, tests or references (nor the
    # set's digest) unnoticed. Its own process: the script sets reportlab's global `invariant` flag.
    script = REPO / "scripts" / "make_canary_set.py"
    subprocess.run([sys.executable, str(script), "--out", str(tmp_path)], check=True, capture_output=True, timeout=120)
    built, shipped = _files(tmp_path), _files(shipped_tests_file().parent)
    assert sorted(built) == sorted(shipped)
    assert [name for name in shipped if built[name] != shipped[name]] == []
