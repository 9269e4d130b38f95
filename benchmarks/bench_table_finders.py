"""The in-house table finder (layout/table_html.py) against pdfplumber's, in the text-layer path, on two sets.

    PYTHONPATH=/tmp/plumb .venv/bin/python -m benchmarks.bench_table_finders \
        [--olmocr-python /tmp/olmocr-venv/bin/python] [--pages 200]

pdfplumber is not a dependency: install it somewhere else first
(`.venv/bin/pip install --target /tmp/plumb --no-deps pdfplumber pdfminer.six`). Each finder replaces
`text_layer.find_tables` for the whole run; glyph repairs, furniture and reading order stay the same, so the
numbers differ only by the tables found. Sets: the olmOCR-format bench (benchmarks/bench_olmo.py, scored per test
type) and pdf-parse-bench's text layer (similarity, text recall, pages/s).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pdfplumber
import pypdfium2 as pdfium

from benchmarks.bench_cpu_engine import DEFAULT_DATA, pages
from benchmarks.bench_olmo import SCORER, run_cpu, write_set
from benchmarks.similarity import page_similarity, segment_recall
from ocr_pipeline.layout.boxes import Rule
from ocr_pipeline.layout.reading_order import Box
from ocr_pipeline.layout.table_html import find_tables, to_html
from ocr_pipeline.textlayer import reader as text_layer

Finder = Callable[[Sequence[Box], Sequence[Rule]], tuple[list[Box], list[Box]]]
# pdfplumber's settings per candidate: ruled grids only, and horizontal rules with text-aligned columns (booktabs).
PLUMBER_SETTINGS = {
    "pdfplumber (lines)": {},
    "pdfplumber (h-lines, text columns)": {"vertical_strategy": "text", "horizontal_strategy": "lines"},
}


def plumber_tables(path: Path, settings: dict) -> list[list[Box]]:
    """Each page's tables as boxes whose text is their HTML (pdfplumber's cells, merged cells as colspans)."""
    out = []
    with pdfplumber.open(path) as pdf:
        for page in pdf.pages:
            boxes = []
            for table in page.find_tables(settings):
                grid = []
                for row in table.extract():
                    cells: list[tuple[str, int]] = []
                    for cell in row:
                        if cell is None and cells:  # pdfplumber's None: the cell to its left spans here
                            cells[-1] = (cells[-1][0], cells[-1][1] + 1)
                        else:
                            cells.append((" ".join((cell or "").split()), 1))
                    grid.append(cells)
                if len(grid) >= 2 and max(len(r) for r in grid) >= 2:
                    boxes.append(Box(*table.bbox, to_html(grid)))
            out.append(boxes)
    return out


def plumber_finder(queue: list[list[Box]]) -> Finder:
    """A find_tables stand-in that takes the next page's pdfplumber tables (layout_text runs once per page)."""

    def find(boxes: Sequence[Box], rules: Sequence[Rule] = ()) -> tuple[list[Box], list[Box]]:
        tables = queue.pop(0) if queue else []
        rest = [
            b
            for b in boxes
            if b.text.strip()
            and not any(t.x0 - 1 <= (b.x0 + b.x1) / 2 <= t.x1 + 1 and t.y0 - 1 <= b.yc <= t.y1 + 1 for t in tables)
        ]
        return rest, tables

    return find


def run_finder(name: str, paths: list[Path], run: Callable[[Path], float]) -> float:
    """Run `run` on every path with `name`'s finder in place; returns the seconds `run` reports plus pdfplumber's."""
    seconds = 0.0
    for path in paths:
        start = time.perf_counter()
        queue = plumber_tables(path, PLUMBER_SETTINGS[name]) if name in PLUMBER_SETTINGS else None
        seconds += time.perf_counter() - start
        text_layer.find_tables = plumber_finder(queue) if queue is not None else find_tables
        seconds += run(path)
    text_layer.find_tables = find_tables
    return seconds


def olmo_scores(out: Path, olmocr_python: str) -> dict[str, dict[str, list[int]]]:
    """Per-finder pass counts per test type on the olmOCR-format set."""
    pdfs = write_set(out)
    results = {}
    for name in ["in-house", *PLUMBER_SETTINGS]:
        folder = "finder_" + "".join(c for c in name if c.isalnum())
        run_finder(name, pdfs, lambda p, folder=folder: run_cpu([p], out / folder) and 0.0)
        done = subprocess.run(
            [olmocr_python, str(SCORER), str(out), folder], capture_output=True, text=True, check=True
        )
        results[name] = json.loads(done.stdout)["by_type"]
    return results


def _extract(pdf: Path, texts: dict[Path, str]) -> float:
    """The page's text layer into `texts`; returns the seconds it took."""
    start = time.perf_counter()
    doc = pdfium.PdfDocument(pdf)
    try:
        texts[pdf] = text_layer.extract_page_text(doc[0])
    finally:
        doc.close()
    return time.perf_counter() - start


def parse_bench_scores(limit: int) -> dict[str, tuple[float, float, float, float]]:
    """Per-finder (similarity, text recall, tables-set similarity, pages/s) of the text layer on pdf-parse-bench."""
    items = pages(DEFAULT_DATA, limit)
    results = {}
    for name in ["in-house", *PLUMBER_SETTINGS]:
        texts: dict[Path, str] = {}
        seconds = run_finder(name, [p for p, _ in items], lambda pdf, texts=texts: _extract(pdf, texts))
        sims, recalls, table_sims = [], [], []
        for pdf, truth_path in items:
            truth = json.loads(truth_path.read_text())
            sims.append(page_similarity(texts[pdf], [s["data"] for s in truth]))
            recalls.append(segment_recall(texts[pdf], [s["data"] for s in truth if s["type"] == "text"]))
            if "tables" in str(pdf):
                table_sims.append(sims[-1])
        results[name] = (
            statistics.fmean(sims),
            statistics.fmean(recalls),
            statistics.fmean(table_sims),
            len(items) / seconds,
        )
    return results


def main(argv: list[str] | None = None) -> int:
    """Print both tables."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=Path("/tmp/olmo-finders"))
    ap.add_argument("--olmocr-python", default=sys.executable)
    ap.add_argument("--pages", type=int, default=200)
    args = ap.parse_args(argv)
    olmo = olmo_scores(args.out, args.olmocr_python)
    print(
        "| finder | table | present | order | absent | all | pdf-parse-bench similarity | text recall |"
        " tables-set similarity | text-layer pages/s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, (sim, rec, tsim, pps) in parse_bench_scores(args.pages).items():
        counts = olmo[name]
        total = [sum(v[i] for k, v in counts.items() if "skipped" not in k) for i in (0, 1)]
        cells = [f"{counts[t][0]}/{counts[t][1]}" for t in ("table", "present", "order", "absent")]
        print(
            f"| {name} | "
            + " | ".join(cells)
            + f" | {total[0]}/{total[1]} | {sim:.3f} | {rec:.3f} | {tsim:.3f} | {pps:.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
