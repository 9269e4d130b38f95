"""Where the real documents are, for the tests marked `shared_data` and for the benchmarks: one setting serves both.

The real pages (olmOCR-Bench's history sets, pdf-parse-bench, the heavy PDFs) are not in the repository: they sit in
`../shared/data` beside the checkout, or wherever `OCR_PIPELINE_BENCH_DATA` names (a worktree outside the project
folder, another machine's mount). Nothing here reads them; it only says where they are and whether they are there.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "OCR_PIPELINE_BENCH_DATA"
REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = Path(os.environ.get(ENV) or REPO.parent / "shared" / "data")
HISTORY = SHARED_DATA / "olmocr-bench-history"
PARSE_BENCH = SHARED_DATA / "pdf-parse-bench"
HEAVY_PDFS = SHARED_DATA / "heavy-pdfs"
HISTORY_SETS = ("headers_footers", "multi_columns", "long_tiny_text", "old_scans", "old_scans_math")
PARSE_SETS = {"formulas": "2026-q1-formulas-only", "tables": "2026-q1-tables-only"}


def shared_data_present() -> bool:
    """Whether the real documents are where this checkout looks for them (both benchmark collections)."""
    return HISTORY.is_dir() and PARSE_BENCH.is_dir()


def where() -> str:
    """Where the data is looked for, and how to point elsewhere: for skip reasons and error messages."""
    return f"{SHARED_DATA} (set {ENV} to another folder)"


def require_shared_data() -> Path:
    """The data folder, or SystemExit with where it was looked for: a benchmark without its data has nothing to run."""
    if not shared_data_present():
        raise SystemExit(f"no real documents at {where()}")
    return SHARED_DATA
