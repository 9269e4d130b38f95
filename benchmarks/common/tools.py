"""Where a benchmark finds the checkout, the interpreters it calls and its scratch folders: one setting each.

The real documents come from `tests.support.shared_data` (`OCR_PIPELINE_BENCH_DATA`, else `../shared/data`), the
setting the tests marked `shared_data` read too. The interpreters below are venvs of their own, never the project's
(olmocr pins its own dependencies); each defaults to a folder in the checkout, which benchmarks/README.md says how to
build, and an environment variable points elsewhere.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _interpreter(variable: str, venv: str, otherwise: str | None = None) -> str:
    """The variable's interpreter, else the venv's in the checkout; `otherwise` where that venv was never built."""
    local = REPO / venv / "bin" / "python"
    return os.environ.get(variable) or (str(local) if local.exists() or otherwise is None else otherwise)


# olmocr 0.4.27 with its bench extra: scores olmOCR-Bench tests with olmocr's own classes. Without it, this
# interpreter: common/olmo_score.py then scores with the package's re-implementation and says so.
OLMOCR_PYTHON = _interpreter("OLMOCR_PYTHON", ".olmocr-venv", sys.executable)
# olmocr 0.4.27 installed whole (torch on CPU): runs olmocr's own pipeline beside ours against the test server.
OLMOCR_FULL_PYTHON = _interpreter("OLMOCR_FULL_PYTHON", ".olmocr-full")


def scratch(name: str) -> Path:
    """A benchmark's default output folder: NAME under the system's temporary folder."""
    return Path(tempfile.gettempdir()) / name
