"""What the quality signals cost beside the CPU engine's own work, page by page, on real PDFs; and the canary's time.

    .venv/bin/python -m benchmarks.bench_quality_signals [--pages-per-set 12] [--no-canary]

Pages come from ../shared/data/olmocr-bench-history (born-digital and scanned, real documents). For each page,
in one run: the page is rendered with its text layer and the CPU engine reads it (both timed: the page's CPU
time), then everything the signals add is timed on its answer:
`page_signals` (repetition, truncation, agreement with the trusted layer, density, blank text), the document's
language vote and the Dolma attribute spans. The table prints both per set and their ratio; issue 20 asks for
under 5 %. The last line times `model_canary`'s work on the CPU engine (render + read + score the shipped set).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from ocr_pipeline.canary.bench_set import load_bench_set, shipped_tests_file
from ocr_pipeline.canary.evaluate import evaluate
from ocr_pipeline.engines.factory import _cpu_engine, cpu_engine
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.quality import PageFacts, add_document_language, page_signals
from ocr_pipeline.quality.attributes import quality_attributes
from ocr_pipeline.settings import DEFAULT_TARGET_LONGEST_IMAGE_DIM, PipelineSettings
from ocr_pipeline.stages.vlm_ocr_outputs import page_input

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "olmocr-bench-history"
SETS = ("headers_footers", "multi_columns", "long_tiny_text", "old_scans")


def _pages(folder: Path, limit: int) -> list[tuple[dict, float]]:
    """Each page row with the seconds its rendering and text layer took (the page's share of its document)."""
    rows = []
    for pdf in sorted((folder / "pdfs").glob("*.pdf"))[:limit]:
        started = time.perf_counter()
        found = [
            {**row, "sha256": pdf.stem} for row in document_pages("pdf", str(pdf), DEFAULT_TARGET_LONGEST_IMAGE_DIM)
        ]
        each = (time.perf_counter() - started) / max(len(found), 1)
        rows += [(row, each) for row in found if row.get("png")]
    return rows


def bench_set(name: str, limit: int) -> tuple[int, float, float]:
    """(pages, seconds rendering and reading, seconds of signals) over the first `limit` PDFs of one set."""
    engine = _cpu_engine()
    engine_s = signal_s = 0.0
    pages = 0
    for row, render_s in _pages(DATA / name, limit):
        page = page_input(row)
        started = time.perf_counter()
        result = engine.ocr_page(page)
        engine_s += time.perf_counter() - started + render_s
        started = time.perf_counter()
        facts = PageFacts(row["width"], row["height"], page.text_layer if page.text_layer_trusted else "")
        quality = page_signals(result, facts)
        manifest_row = {"source": row["sha256"], "primary_language": result.primary_language,
                        "is_fallback": result.is_fallback, "quality": quality}  # fmt: skip
        add_document_language([manifest_row])
        quality_attributes([[0, len(result.text), row["page_num"]]], {row["page_num"]: quality})
        signal_s += time.perf_counter() - started
        pages += 1
    return pages, engine_s, signal_s


def main() -> None:
    """Print the cost table and the canary's time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages-per-set", type=int, default=12, help="PDFs read from each set")
    parser.add_argument("--no-canary", action="store_true")
    args = parser.parse_args()
    _cpu_engine()  # models loaded before any timing
    print(f"{'set':<16} {'pages':>5} {'page ms':>15} {'signals ms/page':>16} {'ratio':>7}")
    totals = [0, 0.0, 0.0]
    ratios = []
    for name in SETS:
        pages, engine_s, signal_s = bench_set(name, args.pages_per_set)
        if not pages:
            continue
        totals = [totals[0] + pages, totals[1] + engine_s, totals[2] + signal_s]
        ratios.append(signal_s / engine_s)
        print(f"{name:<16} {pages:>5} {1000 * engine_s / pages:>15.1f} {1000 * signal_s / pages:>16.2f} "
              f"{signal_s / engine_s:>7.2%}")  # fmt: skip
    pages, engine_s, signal_s = totals
    if pages:
        print(f"{'all':<16} {pages:>5} {1000 * engine_s / pages:>15.1f} {1000 * signal_s / pages:>16.2f} "
              f"{signal_s / engine_s:>7.2%}  (sets: {min(ratios):.2%}-{max(ratios):.2%}, "
              f"median {statistics.median(ratios):.2%})")  # fmt: skip
    if not args.no_canary:
        bench = load_bench_set(shipped_tests_file())
        settings = PipelineSettings(workspace="unused")
        result = evaluate(bench, cpu_engine(settings), settings.target_longest_image_dim)
        print(f"model canary on the CPU engine: {result.pages} pages, {result.scored} tests, "
              f"pass rate {result.pass_rate:.1%}, {result.seconds:.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()
