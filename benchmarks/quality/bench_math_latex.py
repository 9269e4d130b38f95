"""Formulas as LaTeX on born-digital pages: pdf-parse-bench's formulas scored with olmOCR-Bench's math test.

    .venv/bin/python -m benchmarks.quality.bench_math_latex [--limit N]

pdf-parse-bench's formulas-only set (100 pdfLaTeX pages, ../shared/data/pdf-parse-bench) gives the LaTeX source of
every formula on its pages. Each display formula (`$$...$$`) and, apart, each inline formula (`$...$`) becomes an
olmOCR-Bench math test (type "math", the LaTeX without its delimiters). Every page goes through the product's path
(page rows, then `CpuEngine.ocr_page`) and its Markdown is written once into OUT/md; olmocr 0.4.27's `MathTest`
(benchmarks/common/olmo_score.py under `--olmocr-python`) renders each test's LaTeX with KaTeX in Debian's chromium and
looks for a formula in the page's Markdown (`$..$`, `$$..$$`, `\\(..\\)`, `\\[..\\]`) that renders the same symbols
with the same neighbours. A reference KaTeX cannot render (`\\ce`, say) is counted "not loadable" and left out of the
rate. Prints pass rates for display and inline formulas and the seconds a page took (page rows and engine).
`--inline all|none` overrides which inline formulas the engine writes as LaTeX (`MathParams.inline`, passed to the page
rows), to measure what the product's setting ("stacked": only those plain text cannot hold) leaves out.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from benchmarks.common.olmo_bench import score
from benchmarks.common.tools import OLMOCR_PYTHON, scratch
from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.records import PageInput
from ocr_pipeline.textlayer.math.math_params import INLINE_FORMS, MATH_PARAMS
from ocr_pipeline.textlayer.reading_params import READING_PARAMS, ReadingParams
from tests.support.shared_data import PARSE_BENCH, PARSE_SETS

KINDS = {"display": ("display-formula", "$$"), "inline": ("inline-formula", "$")}


def math_tests(truth: Path, kind: str) -> list[dict]:
    """One olmOCR-Bench math test per formula of `kind` ('display' or 'inline') on the page `truth` describes."""
    segment_type, delimiter = KINDS[kind]
    tests = []
    for k, seg in enumerate(json.loads(truth.read_text())):
        data = seg["data"].strip()
        if seg["type"] != segment_type or not (data.startswith(delimiter) and data.endswith(delimiter)):
            continue
        latex = data[len(delimiter) : -len(delimiter)].strip()
        if latex:
            tests.append({"pdf": f"{truth.stem}.pdf", "page": 1, "id": f"{truth.stem}_{kind}_{k:03d}", "type": "math",
                          "math": latex})  # fmt: skip
    return tests


def run_pages(engine: CpuEngine, pdfs: list[Path], out: Path, params: ReadingParams = READING_PARAMS) -> list[float]:
    """Every page through page rows (read with `params`) and the CPU engine, Markdown to OUT/<stem>_pg<n>_repeat1.md;
    seconds a page."""
    out.mkdir(parents=True, exist_ok=True)
    seconds = []
    for pdf in pdfs:
        start = time.perf_counter()
        for row in document_pages("pdf", str(pdf), 1288, params=params):
            page = PageInput.from_row(row, pdf.stem)
            # An untrusted page would be OCR'd, which writes no LaTeX: its text layer stands in (a fast loop).
            text = engine.ocr_page(page).text if page.text_layer_trusted else page.text_layer
            (out / f"{pdf.stem}_pg{row['page_num']}_repeat1.md").write_text(text)
            seconds.append(time.perf_counter() - start)
            start = time.perf_counter()
    return seconds


def main(argv: list[str] | None = None) -> int:
    """Write the tests, run the pages, score display and inline formulas apart."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=PARSE_BENCH / PARSE_SETS["formulas"])
    ap.add_argument("--out", type=Path, default=scratch("bench-math-latex"))
    ap.add_argument("--limit", type=int, default=None, help="at most this many PDFs")
    ap.add_argument("--olmocr-python", default=OLMOCR_PYTHON, help="an interpreter with olmocr[bench]")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--failures", action="store_true", help="list the failing test ids")
    inline_help = "which inline formulas the engine writes as LaTeX (by default the product's setting)"
    ap.add_argument("--inline", choices=INLINE_FORMS, default=MATH_PARAMS.inline, help=inline_help)
    args = ap.parse_args(argv)
    params = replace(READING_PARAMS, math=replace(MATH_PARAMS, inline=args.inline))
    pdfs = sorted((args.data / "pdfs").glob("*.pdf"))[: args.limit]
    seconds = run_pages(CpuEngine(), pdfs, args.out / "md", params)
    print(
        f"pages: {len(pdfs)}; inline formulas as LaTeX: {args.inline}; seconds a page: {statistics.fmean(seconds):.3f}"
    )
    print("| formulas | tests | passed | rate | not loadable |")
    print("|---|---:|---:|---:|---:|")
    for kind in KINDS:
        bench = args.out / kind
        if bench.exists():
            shutil.rmtree(bench)
        bench.mkdir(parents=True)
        tests = [t for pdf in pdfs for t in math_tests(args.data / "ground_truth" / f"{pdf.stem}.json", kind)]
        (bench / "tests.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tests))
        shutil.copytree(args.out / "md", bench / "cpu")
        result = score(bench, "cpu", args.olmocr_python, args.chromium)
        passed, total = result["by_type"].get("math", [0, 0])
        refused = result["by_type"].get("math (not loadable)", [0, 0])[1]
        print(f"| {kind} | {total} | {passed} | {passed / max(total, 1):.3f} | {refused} |")
        if args.failures:
            print(f"{kind} fails: {' '.join(result['failures'])}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
