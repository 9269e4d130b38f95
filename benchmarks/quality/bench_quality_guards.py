"""How near honest pages come to the guards against a bad model: loops, duplicated paragraphs, invented text.

    .venv/bin/python -m benchmarks.quality.bench_quality_guards [--no-ocr] [--list 8] [--heavy | --only-heavy]

Every real page of the shared data and the canary (benchmarks/common/guard_pages.py) with an honest answer: each
signal is measured as the pipeline measures it (the page's text layer beside born-digital answers; the print of the page
rendered at 1288 px where the page has no layer), and once more without the layer's help (as if the page were a
scan), the stricter case. Pages are split in two fixed halves by name, "tune" and "check": the tables give each
signal's largest honest value and its false positives per half. Scans without a transcription are read by the CPU
engine (slow: `--no-ocr` leaves them out). About 10 minutes on 2 busy cores (load average 6).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from dataclasses import dataclass

from benchmarks.common.guard_pages import RealPage, real_pages, render_png
from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.quality.duplicates import duplicated_paragraph
from ocr_pipeline.quality.print_ink import LETTERS_PER_TILE, PIXELS_PER_LETTER, answer_letters, invented_text, page_ink
from ocr_pipeline.quality.repeats import tokens
from ocr_pipeline.quality.repetition import repetition
from ocr_pipeline.records import PageInput


@dataclass
class Measured:
    """One page's guard values."""

    page: RealPage
    run: int  # the longest repeated stretch (tokens)
    period: int
    share: float
    char_run: int
    loop: bool  # the loop verdict, with the page's layer
    loop_as_scan: bool  # ... without it
    duplicate: int  # tokens of the duplicated paragraph found with the layer (0: none)
    duplicate_as_scan: int  # ... without it (the tail rule alone)
    letters: int
    print_pixels: int
    print_tiles: int
    capacity: int
    invented: bool


def measure(page: RealPage, answer: str) -> Measured:
    """Every guard on one page's honest answer."""
    found = tokens(answer)
    rep = repetition(answer, page.layer, found)
    dup = duplicated_paragraph(found, page.layer)
    dup_scan = duplicated_paragraph(found, "")
    ink = page_ink(render_png(page.pdf, page.index))
    return Measured(
        page, rep.longest_run, rep.period, rep.share, rep.char_run, rep.degenerate,
        repetition(answer, "", found).degenerate, dup.length if dup else 0, dup_scan.length if dup_scan else 0,
        answer_letters(answer), ink.print_pixels, ink.print_tiles, ink.capacity,
        invented_text(answer, ink.capacity) is not None,
    )  # fmt: skip


def _ocr(engine: CpuEngine, page: RealPage) -> str:
    png = render_png(page.pdf, page.index)
    return engine.ocr_page(PageInput(page.name, page.index + 1, png)).text


def _table(rows: list[Measured]) -> list[str]:
    out = [
        "| set | half | pages | longest run | loops | loops w/o layer | dup. | dup. as scan | scans | invented "
        "| invented, all | min print px/letter | max letters/tile |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    groups: dict[tuple[str, str], list[Measured]] = defaultdict(list)
    for m in rows:
        groups[(m.page.group, m.page.half)].append(m)
        groups[("all", m.page.half)].append(m)
    for (group, half), ms in sorted(groups.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
        scans = [m for m in ms if not m.page.layer]
        lettered = [m for m in ms if m.letters > 20]
        px = min((m.print_pixels / m.letters for m in lettered), default=0.0)
        per_tile = max((m.letters / max(m.print_tiles, 1) for m in lettered), default=0.0)
        out.append(
            f"| {group} | {half} | {len(ms)} | {max(m.run for m in ms)} | {sum(m.loop for m in ms)} "
            f"| {sum(m.loop_as_scan for m in ms)} | {sum(bool(m.duplicate) for m in ms)} "
            f"| {sum(bool(m.duplicate_as_scan) for m in ms)} | {len(scans)} | {sum(m.invented for m in scans)} "
            f"| {sum(m.invented for m in ms)} | {px:.1f} | {per_tile:.1f} |"
        )
    return out


def _flagged(rows: list[Measured]) -> list[str]:
    out = []
    for m in rows:
        verdicts = (("loop", m.loop), ("loop w/o layer", m.loop_as_scan), ("duplicate", m.duplicate),
                    ("duplicate as scan", m.duplicate_as_scan), ("invented", m.invented))  # fmt: skip
        why = [w for w, hit in verdicts if hit]
        if why:
            out.append(f"- {m.page.name} ({m.page.source}, {m.page.half}): {', '.join(why)}; run {m.run} period "
                       f"{m.period} share {m.share:.2f} char run {m.char_run}; duplicate {m.duplicate} / as scan "
                       f"{m.duplicate_as_scan} tokens; {m.letters} letters, capacity {m.capacity}")  # fmt: skip
    return out


def main() -> None:
    """Print the tables, the flagged pages and the pages nearest each bound."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-ocr", action="store_true", help="leave out scans without a transcription")
    parser.add_argument("--list", type=int, default=8, help="pages nearest each bound to list")
    parser.add_argument("--heavy", action="store_true", help="the heavy PDFs too (run under prlimit --as)")
    parser.add_argument("--only-heavy", action="store_true", help="the heavy PDFs alone (run under prlimit --as)")
    args = parser.parse_args()
    engine = None if args.no_ocr else CpuEngine()
    rows = []
    for page in real_pages(heavy=args.heavy or args.only_heavy):
        if args.only_heavy and page.group != "heavy-pdfs":
            continue
        if page.needs_ocr and engine is None:
            continue
        answer = _ocr(engine, page) if page.needs_ocr and engine is not None else page.answer
        rows.append(measure(page, answer))
    print("\n".join(_table(rows)))
    print("\nFlagged honest pages:\n" + ("\n".join(_flagged(rows)) or "none"))
    lettered = [m for m in rows if m.letters > 20]
    nearest = {
        "longest runs": sorted(rows, key=lambda m: -m.run),
        "longest runs of a unit copied 3+ times": sorted(rows, key=lambda m: -m.run * (m.run >= 2 * m.period)),
        "longest character runs": sorted(rows, key=lambda m: -m.char_run),
        "least print per letter": sorted(lettered, key=lambda m: m.print_pixels / m.letters),
        "most letters per print tile": sorted(lettered, key=lambda m: -m.letters / max(m.print_tiles, 1)),
        "nearest their print capacity": sorted(lettered, key=lambda m: -m.letters / max(m.capacity, 1)),
    }
    for title, ordered in nearest.items():
        print(f"\n{title}:")
        for m in ordered[: args.list]:
            print(f"  {m.page.name} ({m.page.source}, {m.page.half}): run {m.run} (period {m.period}), char run "
                  f"{m.char_run}, {m.letters} letters, {m.print_pixels} print px ({PIXELS_PER_LETTER}/letter), "
                  f"{m.print_tiles} tiles ({LETTERS_PER_TILE}/tile), capacity {m.capacity}")  # fmt: skip


if __name__ == "__main__":
    main()
