"""One page's quality signals, as stored in the OCR manifest's `quality` column (a JSON object per page)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ocr_pipeline.quality.agreement import text_layer_agreement
from ocr_pipeline.quality.degenerate import (
    DUPLICATED_PARAGRAPH,
    INVENTED_TEXT,
    REPETITION_LOOP,
    TRUNCATED,
    WRONG_LANGUAGE,
)
from ocr_pipeline.quality.density import chars_per_sq_in, text_on_blank
from ocr_pipeline.quality.duplicates import duplicated_paragraph
from ocr_pipeline.quality.language import language_mismatch, majority_language
from ocr_pipeline.quality.print_ink import invented_text
from ocr_pipeline.quality.repeats import tokens
from ocr_pipeline.quality.repetition import repetition
from ocr_pipeline.quality.truncation import truncation
from ocr_pipeline.quality.wrong_language import declared_language_mismatch
from ocr_pipeline.records import PageResult

# Bumped when a signal's definition or threshold changes, so readers can tell old values from new.
QUALITY_VERSION = 4  # 2: wrong_language; 3: declared_language_mismatch; 4: loops by length, duplicates, print


@dataclass(frozen=True)
class PageFacts:
    """What the pages manifest knows about a page besides its image: size, trusted text layer, ink."""

    width: int = 0
    height: int = 0
    trusted_text_layer: str = ""  # "" unless the probe trusts the layer (then it is a fair reference)
    ink_pixels: int | None = None  # counted for pages without a text layer (the blank-page check needs it too)
    print_capacity: int | None = None  # letters the image's print can hold, measured with the ink (print_ink)


def page_signals(page: PageResult, facts: PageFacts) -> dict[str, Any]:
    """Every per-page signal of one result; `language_mismatch` waits for the document (add_document_language)."""
    text = page.text or ""
    found = tokens(text)
    rep = repetition(text, facts.trusted_text_layer, found)
    copy = duplicated_paragraph(found, facts.trusted_text_layer)
    finish = page.extra.get("finish_reason")
    cut = truncation(text, finish if isinstance(finish, str) else None)
    # A fallback's text is the layer itself: agreeing with it says nothing about the engine.
    # So is a page routed to its own layer (`route auto`): counted, it would hold up a wrong model's median.
    own_layer = page.is_fallback or page.extra.get("route") == "text_layer"
    agreement = None if own_layer else text_layer_agreement(text, facts.trusted_text_layer)
    # A page the VLM engine fell back on after degenerate answers (degenerate.degenerate_reason) holds the
    # layer's text, which measures clean; the verdicts keep the engine's answers, so the page stays flagged in
    # the Dolma attributes and counted by the partition gates instead of passing as a good page. So does a page
    # whose answers the engine withheld (invented text: the page keeps no text).
    retried = page.extra.get("retried_for") if page.is_fallback or page.extra.get("withheld") else None
    answers = [r for r in retried if isinstance(r, str)] if isinstance(retried, list) else []
    return {
        "version": QUALITY_VERSION,
        "repetition": rep.share,
        "repeat_run": rep.longest_run,
        "repeat_period": rep.period,
        "char_run": rep.char_run,
        "degenerate": rep.degenerate or REPETITION_LOOP in answers,
        "duplicate_paragraph": copy is not None or any(r.startswith(DUPLICATED_PARAGRAPH) for r in answers),
        "duplicate_words": copy.length if copy is not None else 0,
        "finish_reason": cut.finish_reason,
        "open_table": cut.open_table,
        "open_formula": cut.open_formula,
        "ends_mid_word": cut.ends_mid_word,
        "truncated": cut.truncated or any(r.startswith(TRUNCATED) for r in answers),
        "language_mismatch": None,
        # The engine's verdict only (it judged every answer against the trusted layer before keeping it): an
        # accepted page passed, a fallback after wrong-language answers keeps them flagged.
        "wrong_language": any(r.startswith(WRONG_LANGUAGE) for r in answers),
        # The model's own front matter against its words: only the VLM's answers declare a language of their own
        # (the CPU engine detects it from the same words), and a fallback's words are the layer's.
        "declared_language_mismatch": None
        if page.is_fallback or page.engine != "vlm"
        else declared_language_mismatch(text, page.primary_language),
        "text_layer_agreement": agreement,
        "chars_per_sq_in": chars_per_sq_in(text, facts.width, facts.height),
        "blank_text": text_on_blank(text, bool(page.extra.get("blank_page")), facts.ink_pixels),
        "print_capacity": facts.print_capacity,
        # The print as measured, mirrored lines included: reading lines takes the recogniser, which the stored
        # signals do not load. The engine's verdict is the same wherever both can judge (an answer it kept fits
        # the print without its mirrored lines, so with them too), and a page it withheld for mirrored print
        # (no text kept) stays flagged by its reasons.
        "invented_text": invented_text(text, facts.print_capacity) is not None
        or any(r.startswith(INVENTED_TEXT) for r in answers),
    }


def add_document_language(rows: Iterable[dict[str, Any]]) -> None:
    """Fill `language_mismatch` in each row's `quality` dict from its document's (`source`'s) majority language.

    Rows are OCR manifest rows (`source`, `primary_language`, `is_fallback`, `quality`); fallbacks carry no
    language of the engine's and neither vote nor get compared.
    """
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_source[row["source"]].append(row)
    for pages in by_source.values():
        voters = [r["primary_language"] for r in pages if not r.get("is_fallback") and r.get("primary_language")]
        majority = majority_language(voters)
        for row in pages:
            quality = row.get("quality")
            if isinstance(quality, dict):
                own = None if row.get("is_fallback") else row.get("primary_language")
                quality["language_mismatch"] = language_mismatch(own, majority, len(voters))
