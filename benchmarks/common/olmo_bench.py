"""An olmOCR-Bench set run and scored: its PDFs and tests copied out, the CPU engine and pdftotext on its pages, and
olmocr's own test classes over the Markdown (common/olmo_score.py, run by an interpreter that has olmocr).

The Markdown is written as OUT/<set>/<candidate>/<pdf stem>_pg<page>_repeat1.md, the layout olmOCR-Bench reads.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

from benchmarks.common.olmo_parts import in_split
from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.records import PageInput

SCORER = Path(__file__).with_name("olmo_score.py")

# (PDF file name, page number, how it was read: "text_layer" or "ocr", seconds)
PageTime = tuple[str, int, str, float]


def prepare_set(data: Path, name: str, out: Path, limit: int | None, split: str) -> list[Path]:
    """The set's PDFs (in name order, the split and limit applied) and their tests, copied to OUT/<set>/tests.jsonl."""
    pdfs = sorted(p for p in (data / name / "pdfs").glob("*.pdf") if in_split(p.name, split))[:limit]
    keep = {p.name for p in pdfs}
    lines = [ln for ln in (data / name / f"{name}.jsonl").read_text().splitlines() if ln.strip()]
    tests = [ln for ln in lines if json.loads(ln)["pdf"] in keep]
    (out / name).mkdir(parents=True, exist_ok=True)
    (out / name / "tests.jsonl").write_text("".join(t + "\n" for t in tests))
    return pdfs


def run_cpu(engine: CpuEngine, pdfs: list[Path], out: Path, ocr: bool = True) -> list[PageTime]:
    """Every page through page rows and the CPU engine; seconds per page and how it was read.

    `ocr=False` writes an untrusted page's text layer instead of OCR'ing it (a fast loop for text-layer work).
    """
    out.mkdir(parents=True, exist_ok=True)
    seconds: list[PageTime] = []
    for pdf in pdfs:
        start = time.perf_counter()
        for row in document_pages("pdf", str(pdf), 1288):
            page = PageInput.from_row(row, pdf.stem)
            if ocr or page.text_layer_trusted:
                result = engine.ocr_page(page)
                kind = "text_layer" if result.extra.get("source") == "text_layer" else "ocr"
                text = result.text
            else:
                kind, text = "ocr", page.text_layer
            seconds.append((pdf.name, row["page_num"], kind, time.perf_counter() - start))
            (out / f"{pdf.stem}_pg{row['page_num']}_repeat1.md").write_text(text)
            start = time.perf_counter()
    return seconds


def run_pdftotext(pdfs: list[Path], out: Path) -> list[PageTime] | None:
    """poppler's pdftotext on page 1 of each PDF (the sets are single pages); None when it is not installed."""
    if not shutil.which("pdftotext"):
        return None
    out.mkdir(parents=True, exist_ok=True)
    seconds: list[PageTime] = []
    for pdf in pdfs:
        start = time.perf_counter()
        done = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True, text=True)
        seconds.append((pdf.name, 1, "text_layer", time.perf_counter() - start))
        (out / f"{pdf.stem}_pg1_repeat1.md").write_text(done.stdout if done.returncode == 0 else "")
    return seconds


def score(bench: Path, candidate: str, olmocr_python: str, chromium: str | None) -> dict:
    """olmo_score.py's JSON for one candidate of one set."""
    cmd = [olmocr_python, str(SCORER), str(bench), candidate] + (["--chromium", chromium] if chromium else [])
    stdout = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    # olmocr's KaTeX renderer prints a line of its own at exit: the result is the line that holds the JSON.
    return json.loads(next(line for line in stdout.splitlines() if line.startswith("{")))
