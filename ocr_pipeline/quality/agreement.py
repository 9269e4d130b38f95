"""Agreement with the PDF's own text layer: a deployment canary on born-digital pages.

A right model reading a page whose text layer the probe trusts agrees with it closely (markup aside); a wrong
model or prompt behind the server answers something else, and the similarity drops on every such page.
"""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz import fuzz

# Markup the engines add and the text layer lacks: HTML tags, Markdown emphasis, headings, table pipes, LaTeX
# delimiters. Removed from both sides so the score compares words, not formatting.
_MARKUP = re.compile(r"<[^>]{1,200}>|[*_#|`>]+|\\[()\[\]]|\$+")
_SPACES = re.compile(r"\s+")
# Long pages are compared on their first characters: enough to tell the right model from a wrong one, and
# rapidfuzz's cost grows with the product of the lengths.
MAX_COMPARED = 4000


def normalise(text: str) -> str:
    """Text reduced to words for comparison: NFKC, lower case, markup removed, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).lower()
    return _SPACES.sub(" ", _MARKUP.sub(" ", text)).strip()


def text_layer_agreement(text: str, text_layer: str) -> float | None:
    """Similarity 0-1 of the engine's text and the text layer (rapidfuzz ratio), None when either is empty."""
    ours, theirs = normalise(text)[:MAX_COMPARED], normalise(text_layer)[:MAX_COMPARED]
    if not ours or not theirs:
        return None
    return round(fuzz.ratio(ours, theirs) / 100.0, 4)
