"""Where the text-layer agreement gate's threshold sits: right answers against wrong ones on real born-digital pages.

    .venv/bin/python -m benchmarks.quality.bench_agreement_threshold [--ocr-pages 6] [--limit 0]

Each PDF of pdf-parse-bench (formulas, tables) and of olmocr-bench-history's born-digital sets goes through the
pipeline's own page rows (`document_pages`: text layer, trust verdict, 1288 px render); pages whose layer the probe
does not trust are left out, as the gate leaves them out. On each trusted page the agreement
(`text_layer_agreement`) with its layer is measured for what a right model answers there: the ground truth (where
the set has one), the CPU engine as the pipeline runs it, and the CPU engine's OCR of the image alone (a reader
that never saw the layer; slow, so a sample per set). A wrong model is the right answer of another page of the same
set (the next trusted one): fluent text in the same style, about something else, the hardest wrong answer to tell.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path

from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.quality.agreement import text_layer_agreement
from ocr_pipeline.records import PageInput
from tests.support.shared_data import SHARED_DATA

# Each set's PDF folder under the data folder.
SETS = {
    "formulas": "pdf-parse-bench/2026-q1-formulas-only/pdfs",
    "tables": "pdf-parse-bench/2026-q1-tables-only/pdfs",
    "headers_footers": "olmocr-bench-history/headers_footers/pdfs",
    "multi_columns": "olmocr-bench-history/multi_columns/pdfs",
    "long_tiny_text": "olmocr-bench-history/long_tiny_text/pdfs",
}


# pdf-parse-bench writes tables as LaTeX `tabular` source, which no OCR model answers (olmOCR writes HTML, whose
# tags the agreement removes): the table's commands, rules and cell separators go, the cells' words stay.
_TABLE_COMMANDS = re.compile(
    r"\\(?:begin|end)\{tabular\*?\}(?:\{[^}]*\})?|\\multi(?:column|row)\{[^}]*\}\{[^}]*\}"
    r"|\\c?(?:mid)?rule\{[^}]*\}|\\cline\{[^}]*\}|\\(?:hline|toprule|midrule|bottomrule|centering)\b"
    r"|\\(?:textbf|textit|emph|underline)\b"
)
_CELL_MARKS = re.compile(r"\\\\|[&{}]")


def table_words(latex: str) -> str:
    """A LaTeX tabular reduced to the words of its cells, in reading order."""
    return _CELL_MARKS.sub(" ", _TABLE_COMMANDS.sub(" ", latex))


def ground_truth(pdf: Path) -> str | None:
    """pdf-parse-bench's truth for a page, segments joined with blank lines, tables as words; None without one."""
    path = pdf.parent.parent / "ground_truth" / f"{pdf.stem}.json"
    if not path.exists():
        return None
    segments = json.loads(path.read_text())
    return "\n\n".join(table_words(s["data"]) if s["type"] == "table" else s["data"] for s in segments)


def trusted_pages(folder: Path, limit: int) -> list[tuple[Path, dict]]:
    """(pdf, page row) of every page of the folder's PDFs whose text layer the probe trusts."""
    pdfs = sorted(folder.glob("*.pdf"))[: limit or None]
    return [(pdf, row) for pdf in pdfs for row in document_pages("pdf", str(pdf), 1288) if row["text_layer_trusted"]]


def scores(answers: list[str | None], layers: list[str]) -> list[float]:
    """Agreement of each answer with its page's layer, pages without an answer (or a score) skipped."""
    got = [text_layer_agreement(a, layer) for a, layer in zip(answers, layers, strict=True) if a is not None]
    return [s for s in got if s is not None]


def row(name: str, answer: str, values: list[float]) -> str:
    """One Markdown table row: pages, median, 10th percentile, min, max."""
    if not values:
        return f"| {name} | {answer} | 0 | - | - | - | - |"
    p10 = statistics.quantiles(values, n=10, method="inclusive")[0] if len(values) > 1 else values[0]
    cells = [statistics.median(values), p10, min(values), max(values)]
    return f"| {name} | {answer} | {len(values)} | " + " | ".join(f"{v:.2f}" for v in cells) + " |"


def measure(name: str, folder: Path, engine: CpuEngine, ocr_pages: int, limit: int) -> list[str]:
    """The table rows of one set."""
    pages = trusted_pages(folder, limit)
    layers = [r["text_layer"] for _, r in pages]
    truth = [ground_truth(pdf) for pdf, _ in pages]

    def page_input(r: dict, with_layer: bool) -> PageInput:
        layer = r["text_layer"] if with_layer else ""
        return PageInput(name, r["page_num"], r["png"], r["width"], r["height"], layer, with_layer)

    cpu = [engine.ocr_page(page_input(r, True)).text for _, r in pages]
    # The OCR-only sample: evenly spread over the set, each page read from its image alone.
    every = max(1, len(pages) // max(ocr_pages, 1))
    sample = list(range(0, len(pages), every))[:ocr_pages] if ocr_pages else []
    ocr: list[str | None] = [None] * len(pages)
    for i in sample:
        ocr[i] = engine.ocr_page(page_input(pages[i][1], False)).text
    # Another page's right answer: the truth where there is one, else that page's own layer (what a right model
    # reads there, markup aside).
    right = [t if t is not None else layer for t, layer in zip(truth, layers, strict=True)]
    other = right[1:] + right[:1]
    # The olmocr-bench-history sets have tests, not a page's whole text: no ground-truth row for them.
    has_truth = any(t is not None for t in truth)
    return [
        *([row(name, "ground truth", scores(truth, layers))] if has_truth else []),
        row(name, "CPU engine", scores(list(cpu), layers)),
        row(name, "CPU OCR of the image", scores(ocr, layers)),
        row(name, "another page (wrong)", scores(list(other), layers) if len(pages) > 1 else []),
    ]


def main(argv: list[str] | None = None) -> int:
    """Print the table of every set."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ocr-pages", type=int, default=6, help="pages per set read by OCR of the image alone")
    ap.add_argument("--limit", type=int, default=0, help="PDFs per set (0: all)")
    ap.add_argument("--sets", nargs="*", default=list(SETS), choices=list(SETS))
    ap.add_argument("--data", type=Path, default=SHARED_DATA, help="the folder holding both benchmarks")
    args = ap.parse_args(argv)
    engine = CpuEngine()
    print("| set | answer | trusted pages | median | 10th pct | min | max |")
    print("|---|---|---|---|---|---|---|")
    for name in args.sets:
        for line in measure(name, args.data / SETS[name], engine, args.ocr_pages, args.limit):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
