"""An olmOCR-Bench-format test set on disk: its test lines, the PDF pages they name, and a digest of both.

The layout is olmOCR-Bench's: a JSONL file of tests, each naming a `pdf` (relative to a `pdfs/` folder beside the
file, or to the file's own folder) and a 1-based `page`. The shipped canary set (`pages/` here) has that layout.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

# A user's folder is bounded like any input: tests read, pages rendered.
MAX_TESTS = 20_000
MAX_PAGES = 1_000
_REQUIRED = ("pdf", "page", "id", "type")


class BenchSetError(ValueError):
    """A test file that cannot be scored, with a one-line reason naming the file and line."""


@dataclass(frozen=True)
class BenchPage:
    """One page the tests ask about: the PDF on disk and its 1-based page number."""

    pdf: str  # as the tests name it (relative), e.g. "arxiv/2301.pdf"
    path: Path
    page: int

    @property
    def name(self) -> str:
        """olmOCR-Bench's candidate file stem for this page: <pdf stem>_pg<page>."""
        return f"{Path(self.pdf).stem}_pg{self.page}"


@dataclass(frozen=True)
class BenchSet:
    """The tests of one file and the pages they name, in first-mention order."""

    tests_file: Path
    tests: list[dict[str, Any]]
    pages: list[BenchPage]
    digest: str  # of the test lines and the PDFs' bytes: a changed set is a different canary


def shipped_tests_file() -> Path:
    """The canary set inside the package (pages/tests.jsonl)."""
    return Path(str(files("ocr_pipeline.canary") / "pages" / "tests.jsonl"))


def _resolve_pdf(tests_file: Path, pdf: str, line: int) -> Path:
    """The PDF a test names, under the set's folder; a name that climbs out of it (`..`, absolute) is refused."""
    root = tests_file.parent.resolve()
    for base in (root / "pdfs", root):
        candidate = (base / pdf).resolve()
        if not candidate.is_relative_to(root):
            raise BenchSetError(f"{tests_file}:{line}: pdf {pdf!r} lies outside {root}")
        if candidate.is_file():
            return candidate
    raise BenchSetError(f"{tests_file}:{line}: pdf {pdf!r} not found under {root / 'pdfs'} or {root}")


def load_bench_set(tests_file: Path | str) -> BenchSet:
    """Read and check a test file; BenchSetError names the first line that is not a usable test."""
    tests_file = Path(tests_file)
    if tests_file.is_dir():
        tests_file = tests_file / "tests.jsonl"
    if not tests_file.is_file():
        raise BenchSetError(f"{tests_file}: no such test file (olmOCR-Bench JSONL, e.g. tests.jsonl)")
    tests: list[dict[str, Any]] = []
    pages: dict[tuple[str, int], BenchPage] = {}
    digest = hashlib.sha256()
    with tests_file.open(encoding="utf-8") as lines:
        for number, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            try:
                test = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise BenchSetError(f"{tests_file}:{number}: not JSON ({exc.msg})") from None
            if not isinstance(test, dict) or (missing := [k for k in _REQUIRED if k not in test]):
                raise BenchSetError(f"{tests_file}:{number}: a test needs {', '.join(_REQUIRED)}; lacks {missing}")
            if not isinstance(test["page"], int) or test["page"] < 1:
                raise BenchSetError(f"{tests_file}:{number}: page must be a positive integer, not {test['page']!r}")
            key = (str(test["pdf"]), test["page"])
            if key not in pages:
                if len(pages) >= MAX_PAGES:
                    raise BenchSetError(f"{tests_file}: more than {MAX_PAGES} pages; split the set")
                pages[key] = BenchPage(key[0], _resolve_pdf(tests_file, key[0], number), key[1])
            tests.append(test)
            if len(tests) > MAX_TESTS:
                raise BenchSetError(f"{tests_file}: more than {MAX_TESTS} tests; split the set")
            digest.update(raw.strip().encode())
    if not tests:
        raise BenchSetError(f"{tests_file}: no tests")
    for path in sorted({p.path for p in pages.values()}):
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return BenchSet(tests_file, tests, list(pages.values()), digest.hexdigest()[:16])
