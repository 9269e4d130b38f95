"""Whether an answer is degenerate: a model failure that must not count as the page's transcription.

The VLM engine asks this of every reply that parses, and retries the page when it answers with a reason, as
olmOCR retries a reply it cannot parse. It combines the repetition, truncation and wrong-language verdicts, with
their thresholds, so a page the engine retried is a page the stored signals call degenerate, truncated or in the
wrong language. The language judged here is the answer's against the page's own trusted text layer (known while
the page is retried); a page's language against its document's majority waits for the whole document
(`signals.add_document_language`) and is never retried.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ocr_pipeline.quality.repetition import repetition
from ocr_pipeline.quality.truncation import truncation
from ocr_pipeline.quality.wrong_language import wrong_language

# The reasons, as the engine records them in a result's `extra["retried_for"]` and `signals` reads them back.
REPETITION_LOOP = "repetition loop"
TRUNCATED = "truncated"
WRONG_LANGUAGE = "wrong language"


def degenerate_reason(text: str, finish_reason: str | None, text_layer: str = "") -> str | None:
    """Why `text` is a degenerate answer ("repetition loop", "truncated: ...", "wrong language: ..."); None if usable.

    `text_layer` is the page's trusted text layer ("" when it has none): only then is the language judged.
    """
    if repetition(text).degenerate:
        return REPETITION_LOOP
    # Only the server's own word makes a cut answer worth another attempt: a table or formula left open is flagged
    # in the page's signals but not retried, because an honest page can end inside one (a formula that runs on
    # to the next page) and would lose its text after the last attempt.
    if truncation(text, finish_reason).finish_reason == "length":
        return f"{TRUNCATED}: finish_reason length"
    if text_layer and (why := wrong_language(text, text_layer)) is not None:
        return f"{WRONG_LANGUAGE}: {why}"
    return None


def failed_answer(signals: Mapping[str, Any]) -> list[str]:
    """The model failures a page's `quality` signals record: the engine's retry reasons, and text on a blank page.

    A loop, an answer the server cut at the token limit, another language than the trusted layer, text where
    the renderer found no ink. A table or formula left open is not one: an honest page can end inside one.
    """
    failures = [key for key in ("degenerate", "wrong_language", "blank_text") if signals.get(key) is True]
    if signals.get("truncated") is True and signals.get("finish_reason") == "length":
        failures.append("truncated")
    return failures
