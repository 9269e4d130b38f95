"""Page similarity for the benchmarks: 1 - normalised Levenshtein after stripping markup, and segment recall."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

# LaTeX environments and commands that carry layout, not text: dropped whole.
_LATEX_DROP = re.compile(
    r"\\(?:begin|end)\{[a-zA-Z*]+\}(?:\{[^}]*\})?|\\(?:hline|toprule|midrule|bottomrule|cline\{[^}]*\}"
    r"|cmidrule(?:\([^)]*\))?\{[^}]*\}|centering|small|footnotesize|noalign)"
)
# Commands whose argument is the text (\textbf{x} -> x): keep the argument, drop the command.
_LATEX_CMD = re.compile(r"\\[a-zA-Z]+\*?")
_MARKDOWN = re.compile(r"(^|\n)\s*(#{1,6}\s|[-*+]\s|>\s|\|?\s*:?-{3,}:?\s*\|)|\*\*|__|`|<[^>]+>")
_DELIMS = re.compile(r"\$+|\\[()\[\]]|[{}&|^_~]|\\\\")
_WS = re.compile(r"\s+")


def strip_markup(text: str) -> str:
    """Remove Markdown, HTML and LaTeX delimiters and commands; collapse whitespace."""
    text = _LATEX_DROP.sub(" ", text)
    text = text.replace("\\\\", " ")
    text = _MARKDOWN.sub(" ", text)
    text = _LATEX_CMD.sub(" ", text)
    text = _DELIMS.sub(" ", text)
    return _WS.sub(" ", text).strip()


def page_similarity(prediction: str, truth_segments: Sequence[str]) -> float:
    """1 - normalised Levenshtein distance of the stripped page text against the joined truth."""
    truth = strip_markup("\n\n".join(truth_segments))
    return Levenshtein.normalized_similarity(strip_markup(prediction), truth)


def segment_recall(prediction: str, truth_segments: Sequence[str], threshold: float = 90.0) -> float:
    """Share of truth segments found (rapidfuzz partial_ratio >= threshold) in the page text."""
    page = strip_markup(prediction)
    segs = [s for s in (strip_markup(t) for t in truth_segments) if s]
    if not segs:
        return 1.0
    return sum(fuzz.partial_ratio(s, page) >= threshold for s in segs) / len(segs)
