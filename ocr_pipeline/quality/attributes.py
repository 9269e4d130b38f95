"""Quality signals as Dolma attribute spans: `[start, end, value]` over the document text, one span per page.

Names follow Dolma's `<experiment>__<tagger>__<attribute>` convention, so `dolma mix` filters and span
replacements can address them (`$.attributes.ocr_pipeline__quality__degenerate`); booleans are 0/1 scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

PREFIX = "ocr_pipeline__quality__"
# Attribute name suffix -> the manifest's `quality` key it reads ("flagged" is derived below).
_NUMERIC = {"repetition": "repetition", "repeat_run": "repeat_run", "chars_per_sq_in": "chars_per_sq_in",
            "text_layer_agreement": "text_layer_agreement", "print_capacity": "print_capacity"}  # fmt: skip
_FLAGS = {"degenerate": "degenerate", "duplicate_paragraph": "duplicate_paragraph", "truncated": "truncated",
          "blank_text": "blank_text", "invented_text": "invented_text", "wrong_language": "wrong_language",
          "language_mismatch": "language_mismatch",
          "declared_language_mismatch": "declared_language_mismatch"}  # fmt: skip
# A page worth dropping from training data whatever the corpus: a loop, a paragraph written twice, a cut-off
# answer, text made up for a blank page or more than its print holds, answers in another language than the page's
# own text layer (the engine fell back after them). A
# mismatch with the document's majority language is left out: bilingual documents are real; so is a front matter
# that names another language than the words (a model's slip on a page that may still be read right).
_FLAGGED_BY = ("degenerate", "duplicate_paragraph", "truncated", "blank_text", "invented_text", "wrong_language")
QUALITY_ATTRIBUTES = tuple(PREFIX + name for name in (*_NUMERIC, *_FLAGS, "flagged"))


def quality_attributes(
    spans: Sequence[Sequence[int]], quality: Mapping[int, Mapping[str, Any] | None]
) -> dict[str, list[list[float | int]]]:
    """Dolma attributes from the pages' spans (`[start, end, page]`) and each page's `quality` dict.

    A page without a value for a signal (no trusted layer, a manifest written before the signals) has no span
    in that attribute; a document without any quality has no quality attributes at all.
    """
    if not any(quality.get(page) for _, _, page in spans):
        return {}
    out: dict[str, list[list[float | int]]] = {name: [] for name in QUALITY_ATTRIBUTES}
    for start, end, page in spans:
        signals = quality.get(page)
        if not signals:
            continue
        for name, key in _NUMERIC.items():
            value = signals.get(key)
            if value is not None:
                out[PREFIX + name].append([start, end, value])
        for name, key in _FLAGS.items():
            value = signals.get(key)
            if value is not None:
                out[PREFIX + name].append([start, end, int(bool(value))])
        flagged = any(signals.get(key) for key in _FLAGGED_BY)
        out[PREFIX + "flagged"].append([start, end, int(flagged)])
    return out
