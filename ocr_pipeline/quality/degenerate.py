"""Whether an answer is degenerate: a model failure that must not count as the page's transcription.

The VLM engine asks this of every reply that parses, and retries the page when it answers with a reason, as
olmOCR retries a reply it cannot parse. It combines the repetition and truncation verdicts, with their
thresholds, so a page the engine retried is a page the stored signals call degenerate or truncated.
Language is not judged here: a page's language is only comparable with its document's majority, which exists
once every page of the document is read (`signals.add_document_language`), not while one page is retried.
"""

from __future__ import annotations

from ocr_pipeline.quality.repetition import repetition
from ocr_pipeline.quality.truncation import truncation

# The reasons, as the engine records them in a result's `extra["retried_for"]` and `signals` reads them back.
REPETITION_LOOP = "repetition loop"
TRUNCATED = "truncated"


def degenerate_reason(text: str, finish_reason: str | None) -> str | None:
    """Why `text` is a degenerate answer ("repetition loop", "truncated: ..."); None when it is usable."""
    if repetition(text).degenerate:
        return REPETITION_LOOP
    # Only the server's own word makes a cut answer worth another attempt: a table or formula left open is flagged
    # in the page's signals but not retried, because an honest page can end inside one (a formula that runs on
    # to the next page) and would lose its text after the last attempt.
    if truncation(text, finish_reason).finish_reason == "length":
        return f"{TRUNCATED}: finish_reason length"
    return None
