"""What the quality signals cost beside the CPU engine's own work, page by page, on real PDFs; and the canary's time.

    .venv/bin/python -m benchmarks.speed.bench_quality_signals [--pages-per-set 12] [--no-canary]

Pages come from ../shared/data/olmocr-bench-history (born-digital and scanned, real documents). For each page,
in one run: the page is rendered with its text layer and the CPU engine reads it (both timed: the page's CPU
time), then everything the signals add is timed on its answer, once as the CPU engine's and once as if a VLM had
given it (the engine's degenerate check against the trusted layer, and the front-matter language signal):
`page_signals` (repetition and loops by length, duplicated paragraphs, truncation, agreement with the trusted layer,
density, blank text, invented text), the document's language vote and the Dolma attribute spans. A page without a
text layer is also measured for its print (`print_ink.page_ink`: the PNG decoded and its ink classified, which the
stage does for every such page, and the VLM engine asks for again for its retry decision: a memo lookup).
A third timing gives the VLM side an answer that is not the layer byte for byte (as a VLM's never is), so its
language is detected apart from the layer's ("own words"). Each timing starts with the signals' memos empty. The
table prints each per set and its ratio to the page's time; the budget is under 2 %. The last line times
`model_canary`'s work on the CPU engine (render + read + score the shipped set).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

from ocr_pipeline.canary.bench_set import load_bench_set, shipped_tests_file
from ocr_pipeline.canary.evaluate import evaluate
from ocr_pipeline.engines.factory import _cpu_engine, cpu_engine
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.quality import PageFacts, add_document_language, page_signals, repeats, repetition, wrong_language
from ocr_pipeline.quality.attributes import quality_attributes
from ocr_pipeline.quality.degenerate import degenerate_reason
from ocr_pipeline.quality.print_ink import forget_measured, page_ink
from ocr_pipeline.quality.wrong_language import detected_language
from ocr_pipeline.records import PageInput, PageResult
from ocr_pipeline.settings import DEFAULT_TARGET_LONGEST_IMAGE_DIM, PipelineSettings
from ocr_pipeline.stages.vlm_ocr_outputs import page_input
from tests.support.shared_data import HISTORY

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


def _signals(result: PageResult, row: dict, facts: PageFacts) -> None:
    """Everything the signals add to one page: its signals, the document vote, the Dolma spans."""
    quality = page_signals(result, facts)
    manifest_row = {"source": row["sha256"], "primary_language": result.primary_language,
                    "is_fallback": result.is_fallback, "quality": quality}  # fmt: skip
    add_document_language([manifest_row])
    quality_attributes([[0, len(result.text), row["page_num"]]], {row["page_num"]: quality})


def _forget() -> None:
    """Empty the signals' memos, so each timing measures a page seen for the first time."""
    forget_measured()
    for memo in (wrong_language.detected_language, repeats.layer_counts, repeats.tokens,
                 getattr(repetition, "_char_runs", None)):  # fmt: skip
        getattr(memo, "cache_clear", lambda: None)()  # a checkout without one of them (compared with --base)


def _as_vlm(row: dict, page: PageInput, facts: PageFacts, answer: PageResult) -> float:
    """Seconds of everything the signals add to a VLM answer: the engine's judgement, then the stored signals."""
    _forget()
    started = time.perf_counter()
    # A page without a layer is asked for twice on the VLM path, by the stage and by the engine to judge the
    # answer: the second finds it in print_ink's memo.
    for _ in range(0 if page.text_layer.strip() else 2):
        page_ink(row["png"])
    degenerate_reason(answer.text, "stop", facts.trusted_text_layer, facts.print_capacity)
    _signals(answer, row, facts)
    return time.perf_counter() - started


def bench_set(name: str, limit: int) -> tuple[int, float, float, float, float]:
    """(pages, seconds rendering and reading, seconds of signals, seconds of signals as a VLM answer, the same for
    an answer in other words than the layer)."""
    engine = _cpu_engine()
    engine_s = signal_s = vlm_s = own_s = 0.0
    pages = 0
    for row, render_s in _pages(HISTORY / name, limit):
        page = page_input(row)
        started = time.perf_counter()
        result = engine.ocr_page(page)
        engine_s += time.perf_counter() - started + render_s
        _forget()  # each column times a fresh measure
        started = time.perf_counter()
        ink = None if page.text_layer.strip() else page_ink(row["png"])
        facts = PageFacts(row["width"], row["height"], page.text_layer if page.text_layer_trusted else "",
                          ink.ink_pixels if ink else None, ink.capacity if ink else None)  # fmt: skip
        _signals(result, row, facts)
        signal_s += time.perf_counter() - started
        # The same words as a VLM answer: the engine's degenerate check (loop, cut, wrong language against the
        # trusted layer) on the reply, and the front-matter language signal only VLM answers get.
        answer = dataclasses.replace(result, engine="vlm", primary_language=result.primary_language or "en")
        vlm_s += _as_vlm(row, page, facts, answer)
        # The CPU engine answers a born-digital page with its layer, so the language of answer and layer is one
        # detection; a VLM's answer is never the layer byte for byte (a heading mark, another line break), and its
        # language is detected apart from the layer's. A leading line break stands for that difference.
        own_s += _as_vlm(row, page, facts, dataclasses.replace(answer, text="\n" + answer.text))
        pages += 1
    return pages, engine_s, signal_s, vlm_s, own_s


def _row(name: str, pages: int, engine_s: float, signal_s: float, vlm_s: float, own_s: float) -> str:
    per = 1000 / pages
    return (f"{name:<16} {pages:>5} {engine_s * per:>9.1f} {signal_s * per:>11.2f} {signal_s / engine_s:>7.2%} "
            f"{vlm_s * per:>10.2f} {vlm_s / engine_s:>7.2%} {own_s * per:>10.2f} {own_s / engine_s:>7.2%}")  # fmt: skip


def main() -> None:
    """Print the cost table and the canary's time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages-per-set", type=int, default=12, help="PDFs read from each set")
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=SETS)
    parser.add_argument("--no-canary", action="store_true")
    args = parser.parse_args()
    _cpu_engine()  # models loaded before any timing
    detected_language("A sentence to load langdetect's profiles before any timing.")
    print(f"{'set':<16} {'pages':>5} {'page ms':>9} {'signals ms':>11} {'ratio':>7} {'as VLM ms':>10} {'ratio':>7} "
          f"{'own words':>10} {'ratio':>7}")  # fmt: skip
    totals = [0.0] * 5
    for name in args.sets:
        measured = bench_set(name, args.pages_per_set)
        if not measured[0]:
            continue
        totals = [t + m for t, m in zip(totals, measured, strict=True)]
        print(_row(name, *measured))
    if totals[0]:
        print(_row("all", int(totals[0]), *totals[1:]))
    if not args.no_canary:
        bench = load_bench_set(shipped_tests_file())
        settings = PipelineSettings(workspace="unused")
        result = evaluate(bench, cpu_engine(settings), settings.target_longest_image_dim)
        print(f"model canary on the CPU engine: {result.pages} pages, {result.scored} tests, "
              f"pass rate {result.pass_rate:.1%}, {result.seconds:.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()
