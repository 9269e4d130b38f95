"""olmo_score.py's fallback scorer: the package's olmOCR-Bench semantics (ocr_pipeline/canary/olmo_tests.py).

olmo_score.py runs in any interpreter that has olmocr, often one without this package installed, so the checkout's
root goes on the path; olmo_tests.py needs only the standard library and rapidfuzz.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ocr_pipeline.canary.olmo_tests import html_grids, normalize, run_test

__all__ = ["html_grids", "normalize", "own_run"]


def own_run(test: dict, md: str) -> bool:
    """Whether `md` passes one olmOCR-Bench test line (the package's re-implementation of olmocr's classes)."""
    return run_test(test, md)
