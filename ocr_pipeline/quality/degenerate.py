"""Whether an answer is degenerate: a model failure that must not count as the page's transcription.

The VLM engine asks this of every reply that parses, and retries the page when it answers with a reason, as
olmOCR retries a reply it cannot parse. It combines the repetition, duplicated-paragraph, truncation, invented-text
and wrong-language verdicts, with their thresholds, so a page the engine retried is a page the stored signals call
degenerate, duplicated, truncated, invented or in the wrong language. The language judged here is the answer's
against the page's own trusted text layer (known while the page is retried); a page's language against its
document's majority waits for the whole document (`signals.add_document_language`) and is never retried.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ocr_pipeline.quality.duplicates import duplicated_paragraph
from ocr_pipeline.quality.print_ink import invented_text
from ocr_pipeline.quality.repeats import tokens
from ocr_pipeline.quality.repetition import repetition
from ocr_pipeline.quality.truncation import truncation
from ocr_pipeline.quality.wrong_language import wrong_language

# The reasons, as the engine records them in a result's `extra["retried_for"]` and `signals` reads them back.
REPETITION_LOOP = "repetition loop"
DUPLICATED_PARAGRAPH = "duplicated paragraph"
TRUNCATED = "truncated"
WRONG_LANGUAGE = "wrong language"
INVENTED_TEXT = "invented text"
# Attempts an answer with invented text gets before the page falls back: a model that invents text for a near-blank
# page does so again at the next temperature, and the page holds little to lose.
INVENTED_TEXT_ATTEMPTS = 2


def degenerate_reason(
    text: str, finish_reason: str | None, text_layer: str = "", print_capacity: int | None = None
) -> str | None:
    """Why `text` is a degenerate answer ("repetition loop", "duplicated paragraph: ...", "truncated: ...",
    "invented text: ...", "wrong language: ..."); None if usable.

    `text_layer` is the page's trusted text layer ("" when it has none): only then is the language judged, and a
    repetition it holds as often is the page's own. `print_capacity` is the letters the page image's print can hold
    (`print_ink.PageInk.capacity`, measured on pages without a text layer), None where not measured.
    """
    found = tokens(text)
    if repetition(text, text_layer, found).degenerate:
        return REPETITION_LOOP
    if (copy := duplicated_paragraph(found, text_layer)) is not None:
        return f"{DUPLICATED_PARAGRAPH}: {copy.length} words written twice"
    # Only the server's own word makes a cut answer worth another attempt: a table or formula left open is flagged
    # in the page's signals but not retried, because an honest page can end inside one (a formula that runs on
    # to the next page) and would lose its text after the last attempt.
    if truncation(text, finish_reason).finish_reason == "length":
        return f"{TRUNCATED}: finish_reason length"
    if (why := invented_text(text, print_capacity)) is not None:
        return f"{INVENTED_TEXT}: {why}"
    if text_layer and (why := wrong_language(text, text_layer)) is not None:
        return f"{WRONG_LANGUAGE}: {why}"
    return None


def failed_answer(signals: Mapping[str, Any]) -> list[str]:
    """The model failures a page's `quality` signals record: the engine's retry reasons, and text on a blank page.

    A loop, a duplicated paragraph, an answer the server cut at the token limit, another language than the trusted
    layer, text the page's print cannot hold, text where the renderer found no ink. A table or formula left open is
    not one: an honest page can end inside one.
    """
    keys = ("degenerate", "duplicate_paragraph", "wrong_language", "invented_text", "blank_text")
    failures = [key for key in keys if signals.get(key) is True]
    if signals.get("truncated") is True and signals.get("finish_reason") == "length":
        failures.append("truncated")
    return failures
