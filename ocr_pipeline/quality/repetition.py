"""Repetition loops: how much of a page repeats itself, and how long the longest repeated stretch runs.

In the spirit of olmOCR-Bench's "baseline" test, which fails a page whose text *ends* with more than 30 copies
of one 1-5 character n-gram (a model stuck until `max_tokens`). Here the unit is a word n-gram anywhere on the
page, so a loop that stopped before the token limit, or a table row copied 200 times, is measured as well.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Words and numbers, HTML tags and LaTeX commands removed first: markup repeats on every honest table row
# (`</td><td>`, `\\columncolor`), while a copied row still repeats in its cell contents.
_TOKEN = re.compile(r"\w+")
_MARKUP = re.compile(r"<[^<>]{1,200}>|\\[a-zA-Z]+")
# A word 8-gram seen before on the same page is a repeat. Shorter n-grams repeat in honest prose and tables
# ("of the", "</td><td>"); 8 tokens of the same order twice is rare outside boilerplate and loops.
NGRAM = 8
# A page is degenerate when at least this share of its tokens lies in repeated 8-grams AND the longest
# contiguous repeated stretch is at least REPEAT_RUN_MIN tokens. Loops seen from olmOCR models (a line, a table
# row or a formula copied until the token limit) score share > 0.9 and runs of 500+; 318 real pages of
# pdf-parse-bench and olmOCR-Bench old scans score share <= 0.51 and runs <= 124, never both (test_quality.py).
REPEAT_SHARE_MIN = 0.6
REPEAT_RUN_MIN = 120
# A unit of 1-8 characters repeated at least this many times in a row (whitespace collapsed): "0000...",
# "ababab...", "\\\\\\\\". olmOCR-Bench fails 30 copies of a short n-gram; 150 leaves room for dot leaders and
# form underlines (rarely longer than 100 characters on a page) while any token-limit loop runs far past it.
CHAR_RUN_MIN = 150
_CHAR_RUN = re.compile(r"(.{1,8}?)\1{29,}", re.DOTALL)


@dataclass(frozen=True)
class Repetition:
    """Repetition on one page: share of tokens in repeated n-grams, longest repeated runs, the verdict."""

    share: float  # tokens inside a word 8-gram that already occurred on the page, over all tokens
    longest_run: int  # tokens in the longest contiguous stretch of such repeats
    char_run: int  # characters in the longest run of one 1-8 character unit repeated 30 times or more
    degenerate: bool


def repetition(text: str) -> Repetition:
    """Measure repeated word n-grams and character runs; `degenerate` when they look like a model loop."""
    tokens = _TOKEN.findall(_MARKUP.sub(" ", text.lower()))
    share, run = _ngram_repeats(tokens)
    chars = _char_run(text)
    degenerate = (share >= REPEAT_SHARE_MIN and run >= REPEAT_RUN_MIN) or chars >= CHAR_RUN_MIN
    return Repetition(share=round(share, 4), longest_run=run, char_run=chars, degenerate=degenerate)


def _ngram_repeats(tokens: list[str]) -> tuple[float, int]:
    """(share of tokens covered by repeated n-grams, tokens in the longest run of consecutive repeats)."""
    if len(tokens) < NGRAM:
        return 0.0, 0
    seen: set[tuple[str, ...]] = set()
    covered_until = 0  # tokens before this index are already counted as covered
    covered = longest = streak = 0
    for start in range(len(tokens) - NGRAM + 1):
        gram = tuple(tokens[start : start + NGRAM])
        if gram in seen:
            end = start + NGRAM
            covered += end - max(start, covered_until)
            covered_until = end
            streak += 1
            longest = max(longest, streak + NGRAM - 1)
        else:
            seen.add(gram)
            streak = 0
    return covered / len(tokens), longest


def _char_run(text: str) -> int:
    """Characters in the longest run of a short unit repeated at least 30 times, whitespace collapsed."""
    squeezed = " ".join(text.split())
    return max((len(m.group(0)) for m in _CHAR_RUN.finditer(squeezed)), default=0)
