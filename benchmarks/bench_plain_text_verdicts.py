"""Do the VLM path's signals judge pdfium's plain text as they judged the full layout? Real pages, both kinds.

    .venv/bin/python -m benchmarks.bench_plain_text_verdicts [--sets ...] [--limit 0]

Every page of the real sets is read twice through `document_pages` without images: with the full layout (what
every page paid for before, and what a fallback page still stores) and with the plain text (what the VLM path
reads now). Counted per set: pages whose trust verdict changes, whose text layer is empty in one kind only (the
blank-page check counts ink only where the layer is empty), whose language (langdetect, as wrong_language reads
it) differs; and, on pages trusted under both, the text-layer agreement of a right answer (the layout text itself,
which reads as a good model does: reading order, running heads dropped, tables as HTML; and pdf-parse-bench's
ground truth) and of a wrong one (the next such page's layout text) against each reference, with the pages whose
verdict at the gate's 0.6 changes, and wrong_language's verdict on the right answer (a false alarm would cost a
retry). CPU milliseconds a page of each kind are printed beside.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.bench_agreement_threshold import ground_truth
from ocr_pipeline.pdf.page_rows import LAYOUT, PLAIN, document_pages
from ocr_pipeline.quality.agreement import text_layer_agreement
from ocr_pipeline.quality.wrong_language import MAX_JUDGED, MIN_LETTERS, detected_language, prose, wrong_language

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SETS = {
    "formulas": "pdf-parse-bench/2026-q1-formulas-only/pdfs",
    "tables": "pdf-parse-bench/2026-q1-tables-only/pdfs",
    "headers_footers": "olmocr-bench-history/headers_footers/pdfs",
    "multi_columns": "olmocr-bench-history/multi_columns/pdfs",
    "long_tiny_text": "olmocr-bench-history/long_tiny_text/pdfs",
    "old_scans": "olmocr-bench-history/old_scans/pdfs",
    "old_scans_math": "olmocr-bench-history/old_scans_math/pdfs",
}
# The shipped agreement gate's threshold (dbt_like_checks/vlm_ocr_outputs.yml).
GATE = 0.6


@dataclass
class Page:
    """One page read both ways."""

    layout: str
    plain: str
    trusted_layout: bool
    trusted_plain: bool
    truth: str | None = None


@dataclass
class Tally:
    """One set's counts."""

    pages: int = 0
    layout_s: float = 0.0
    plain_s: float = 0.0
    trust_lost: int = 0
    trust_gained: int = 0
    empty_changed: int = 0
    language_judged: int = 0
    language_changed: int = 0
    both_trusted: list[Page] = field(default_factory=list)


def language(text: str) -> str | None:
    """The language wrong_language would read in `text`, or None where it judges nothing."""
    judged = prose(text)[:MAX_JUDGED]
    if sum(c.isalpha() for c in judged) < MIN_LETTERS:
        return None
    found = detected_language(judged)
    return found[0] if found else None


def read_set(folder: Path, limit: int) -> Tally:
    """Both kinds of every page of the set's PDFs."""
    tally = Tally()
    pdfs = sorted(folder.glob("*.pdf"))
    for pdf in pdfs[:limit] if limit else pdfs:
        started = time.process_time()
        layout = list(document_pages("pdf", str(pdf), 1288, text=LAYOUT, images=False))
        middle = time.process_time()
        plain = list(document_pages("pdf", str(pdf), 1288, text=PLAIN, images=False))
        tally.layout_s += middle - started
        tally.plain_s += time.process_time() - middle
        truth = ground_truth(pdf) if len(layout) == 1 else None
        for a, b in zip(layout, plain, strict=True):
            tally.pages += 1
            page = Page(a["text_layer"], b["text_layer"], a["text_layer_trusted"], b["text_layer_trusted"], truth)
            tally.trust_lost += page.trusted_layout and not page.trusted_plain
            tally.trust_gained += page.trusted_plain and not page.trusted_layout
            tally.empty_changed += bool(page.layout.strip()) != bool(page.plain.strip())
            if page.trusted_layout and page.trusted_plain:
                tally.both_trusted.append(page)
                ours, theirs = language(page.layout), language(page.plain)
                if ours is not None or theirs is not None:
                    tally.language_judged += 1
                    tally.language_changed += ours != theirs
    return tally


def agreement_rows(name: str, pages: list[Page]) -> list[str]:
    """Table rows: each answer's agreement with either reference, and the pages whose gate verdict changes."""
    answers: dict[str, list[tuple[str, Page]]] = {"right (layout text)": [(p.layout, p) for p in pages]}
    if any(p.truth for p in pages):
        answers["right (ground truth)"] = [(p.truth, p) for p in pages if p.truth]
    answers["wrong (next page)"] = [(pages[(i + 1) % len(pages)].layout, p) for i, p in enumerate(pages)]
    out = []
    for label, pairs in answers.items():
        if len(pages) < 2:
            break
        before = [text_layer_agreement(answer, p.layout) or 0.0 for answer, p in pairs]
        after = [text_layer_agreement(answer, p.plain) or 0.0 for answer, p in pairs]
        lost = sum(x >= GATE > y for x, y in zip(before, after, strict=True))
        gained = sum(y >= GATE > x for x, y in zip(before, after, strict=True))
        alarms = sum(wrong_language(answer, p.plain) is not None for answer, p in pairs) if "right" in label else 0
        alarms_before = (
            sum(wrong_language(answer, p.layout) is not None for answer, p in pairs) if "right" in label else 0
        )
        out.append(
            f"| {name} | {label} | {len(pairs)} | {statistics.median(before):.2f} | {statistics.median(after):.2f} "
            f"| {min(after):.2f} | {lost} / {gained} | {alarms_before} -> {alarms} |"
        )
    return out


def main() -> None:
    """Read every set both ways and print two Markdown tables."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    p.add_argument("--limit", type=int, default=0, help="PDFs per set (0: all)")
    args = p.parse_args()
    tallies = {name: read_set(DATA / SETS[name], args.limit) for name in args.sets}

    print("\n| set | pages | layout ms a page | plain ms a page | trust lost | trust gained | empty in one kind only "
          "| language differs (of judged) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name, t in tallies.items():
        n = max(t.pages, 1)
        print(f"| {name} | {t.pages} | {1000 * t.layout_s / n:.1f} | {1000 * t.plain_s / n:.1f} | {t.trust_lost} "
              f"| {t.trust_gained} | {t.empty_changed} | {t.language_changed} of {t.language_judged} |")  # fmt: skip
    print("\nAgreement on pages trusted both ways (median against the layout, then against the plain text):\n")
    print("| set | answer | pages | median (layout ref) | median (plain ref) | min (plain ref) "
          "| passed 0.6, now not / now passes | wrong_language alarms (layout -> plain ref) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name, t in tallies.items():
        for row in agreement_rows(name, t.both_trusted):
            print(row)


if __name__ == "__main__":
    main()
