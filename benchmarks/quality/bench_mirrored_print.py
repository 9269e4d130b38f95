"""The mirrored-print check (quality/mirrored_print.py): what it flags, what it spares, what it costs.

    .venv/bin/python -m benchmarks.quality.bench_mirrored_print [--no-ocr] [--no-full] [--list 8] [--only-heavy]

1. Near-blank scans (tests/support/builders/near_blank.py, and bleed-through of FRONT_PAGE over a grid of depths
   and blurs) answered with a page of invented prose and with their honest answers, judged by the VLM engine's
   AnswerJudge; faint honest print at the same depths answered with its own words.
2. Every real page without a text layer (benchmarks/common/guard_pages.py: the old scans with the human transcriptions
   and olmOCR's answers, old_scans_math and the scan pages of the other sets read by the CPU engine, the canary's
   scans) judged as the engine judges its answer: whether the check ran, lines read and judged mirrored, the
   verdict, and the check's CPU time (the recogniser's models loaded beforehand, as in a long-running worker).
3. Every real page's image by its print alone (leave out with --no-full): every line read; pages with any line
   judged mirrored, pages judged bleed-through, and honest answers that the capacity left would flag.
CPU times are process times (all threads), with the page's PNG decoded as the engine decodes it. The heavy PDFs
are left out; `--only-heavy` measures them alone (sections 2 and 3), to be run under a memory cap (`prlimit --as`).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import time

import numpy as np
from PIL import Image

from benchmarks.common.guard_pages import RealPage, real_pages, render_png
from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.engines.vlm import answer_judge
from ocr_pipeline.engines.vlm.answer_judge import AnswerJudge
from ocr_pipeline.quality.degenerate import INVENTED_TEXT
from ocr_pipeline.quality.mirrored_print import MirroredPrint
from ocr_pipeline.quality.print_ink import answer_letters, forget_measured, invented_text, page_ink
from ocr_pipeline.records import PageInput
from tests.support.builders import near_blank
from tests.support.pages import rendered_scan
from tests.support.vlm_answers import INVENTED_PAGE

STAMP_WORDS = "RECEIVED\n\nMAR 12 1911"


class TimedJudge(AnswerJudge):
    """The engine's judge, with the CPU time its mirrored-print check took."""

    spent = 0.0

    def _unmirrored_capacity(self, letters: int) -> int | None:
        start = time.process_time()
        try:
            return super()._unmirrored_capacity(letters)
        finally:
            self.spent += time.process_time() - start


def judge(png: bytes, answer: str) -> tuple[str | None, TimedJudge, float]:
    """The engine's verdict on one answer to a page without a layer, the judge, and the whole judgement's CPU s."""
    forget_measured()
    judged = TimedJudge(PageInput("bench", 1, png))
    start = time.process_time()
    why = asyncio.run(judged.reason(answer, "stop"))
    return why, judged, time.process_time() - start


def near_blank_rows() -> list[str]:
    """Section 1: each near-blank case and faint print, its verdicts and the check's CPU."""
    cases = {name: (near_blank.near_blank_back(name), ["", STAMP_WORDS]) for name in near_blank.BACKS}
    for depth in (120, 150, 180, 210):
        for blur in (0.6, 1.0, 1.5):
            image = near_blank.bleed_through(depth, blur, seed=5, text=near_blank.FRONT_PAGE)
            cases[f"grid: depth {depth}, blur {blur}"] = (image, [""])
    out = ["| page | capacity | invented page | check ms | lines read / mirrored | honest answers flagged |",
           "|---|---:|---|---:|---:|---:|"]  # fmt: skip
    for name, (image, honest) in cases.items():
        png = rendered_scan(image)
        why, judged, _ = judge(png, INVENTED_PAGE)
        seen = judged.mirrored
        read = f"{len(seen.readings)} / {len(seen.mirrored)}" if seen else "not run"
        flagged = sum(judge(png, answer)[0] is not None for answer in honest)
        out.append(f"| {name} | {page_ink(png).capacity:,} | {'flagged' if why else 'PASSED'} "
                   f"| {judged.spent * 1000:.0f} | {read} | {flagged} of {len(honest)} |")  # fmt: skip
    for depth in (40, 90, 150, 210):
        png = rendered_scan(near_blank.faint_print(depth))
        why, judged, _ = judge(png, near_blank.FRONT_PAGE)
        seen = judged.mirrored
        read = f"{len(seen.readings)} / {len(seen.mirrored)}" if seen else "not run"
        out.append(f"| faint print, depth {depth}, its own words | {page_ink(png).capacity:,} "
                   f"| {'FLAGGED' if why else 'passed'} (honest) | {judged.spent * 1000:.0f} | {read} | |")  # fmt: skip
    return out


def scan_rows(pages: list[tuple[RealPage, str]], listed: int) -> list[str]:
    """Section 2: the engine's judgement of each real scan's honest answer; the check's cost by set."""
    ran, spent, flagged, mirrored_pages = 0, [], [], []
    by_group: dict[str, list[float]] = {}
    for page, answer in pages:
        why, judged, _ = judge(render_png(page.pdf, page.index), answer)
        by_group.setdefault(page.group, []).append(judged.spent * 1000)
        if judged.mirrored is not None:
            ran += 1
            spent.append((judged.spent, page.name, len(judged.mirrored.readings)))
            if judged.mirrored.mirrored:
                mirrored_pages.append(f"{page.name} ({len(judged.mirrored.mirrored)} lines)")
        if why is not None and why.startswith(INVENTED_TEXT):
            flagged.append(f"{page.name} ({page.source}): {why}")
    read_on = sum(n > 0 for _, _, n in spent)
    out = [f"pages without a layer: {len(pages)}; the check ran on {ran} (an answer of more than 20 letters that fits "
           f"the print), read lines on {read_on}", f"flagged as invented text: {len(flagged)}"]  # fmt: skip
    out += [f"  {line}" for line in flagged]
    out.append(f"pages with a line judged mirrored: {len(mirrored_pages)} {mirrored_pages}")
    out += ["", "| set | pages | check CPU ms per page: median | worst |", "|---|---:|---:|---:|"]
    for group, ms in sorted(by_group.items()):
        out.append(f"| {group} | {len(ms)} | {statistics.median(ms):.0f} | {max(ms):.0f} |")
    if spent:
        counts = [n for _, _, n in spent]
        out.append(f"\nlines read where it ran: median {statistics.median(counts):.0f}, most {max(counts)}; costliest:")
        out += [f"  {t * 1000:.0f} ms {name} ({n} lines read)" for t, name, n in sorted(spent)[::-1][:listed]]
    return out


def full_rows(pages: list[tuple[RealPage, str]]) -> list[str]:
    """Section 3: every line of every real page read; pages with mirrored lines; honest answers it would flag."""
    reader = CpuEngine(detect_rotation=False)
    any_mirrored, bleed, flagged, lines = [], [], [], 0
    read: dict[tuple[str, int], MirroredPrint] = {}  # an old scan comes twice: the human's and olmOCR's answers
    for page, answer in pages:
        seen = read.get((str(page.pdf), page.index))
        if seen is None:
            with Image.open(io.BytesIO(render_png(page.pdf, page.index))) as image:
                grey = np.asarray(image.convert("L"), dtype=np.uint8)
            seen = read[(str(page.pdf), page.index)] = MirroredPrint(grey, reader._recognise)
            seen.read_all()
            lines += len(seen.readings)
            if seen.mirrored:
                any_mirrored.append(f"{page.name} ({len(seen.mirrored)} of {len(seen.readings)})")
            if seen.bleed_through:
                bleed.append(page.name)
        if answer_letters(answer) > 20 and invented_text(answer, seen.capacity()) is not None:
            flagged.append(f"{page.name}: {invented_text(answer, seen.capacity())}")
    return [f"pages: {len(pages)} ({len(read)} images), lines read: {lines}",
            f"pages with a line judged mirrored: {len(any_mirrored)} {any_mirrored}",
            f"pages judged bleed-through: {len(bleed)} {bleed}",
            f"honest answers flagged against the capacity left: {len(flagged)} {flagged}"]  # fmt: skip


def main() -> None:
    """Print the three sections."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-ocr", action="store_true", help="leave out scans without a transcription")
    parser.add_argument("--no-full", action="store_true", help="leave out section 3 (every line of every page)")
    parser.add_argument("--list", type=int, default=8, help="costliest pages to list")
    parser.add_argument("--only-heavy", action="store_true", help="the heavy PDFs alone (run under prlimit --as)")
    args = parser.parse_args()
    answer_judge._READER._engine()  # loaded once, as in a worker that has judged a page before
    if not args.only_heavy:
        print("## Near-blank scans\n\n" + "\n".join(near_blank_rows()))
    engine = None if args.no_ocr else CpuEngine()
    pages = []
    for page in real_pages(heavy=args.only_heavy):
        if (page.needs_ocr and engine is None) or args.only_heavy != (page.group == "heavy-pdfs"):
            continue
        answer = page.answer
        if page.needs_ocr and engine is not None:
            answer = engine.ocr_page(PageInput(page.name, page.index + 1, render_png(page.pdf, page.index))).text
        pages.append((page, answer))
    print("\n## Real pages without a text layer, judged as the engine judges\n")
    print("\n".join(scan_rows([(p, a) for p, a in pages if not p.layer], args.list)))
    if not args.no_full:
        print("\n## Every real page by its print alone, every line read\n\n" + "\n".join(full_rows(pages)))


if __name__ == "__main__":
    main()
