"""Repetition loops: how much of a page repeats itself, how long the repeated stretches run, and at what period.

In the spirit of olmOCR-Bench's "baseline" test, which fails a page whose text *ends* with more than 30 copies
of one 1-5 character n-gram (a model stuck until `max_tokens`). Here the unit is a word n-gram anywhere on the
page, so a loop that stopped before the token limit, or a table row copied 200 times, is measured as well. A loop
is judged by its length, not only by its share of the page: a line copied 60 times at the end of a long page is a
small share of it. Where the page's trusted text layer repeats the same words as often, the repetition is the
page's own (a form's labels, a figure's legend printed twice) and no loop.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from ocr_pipeline.quality.repeats import RepeatRun, Tokens, layer_explains, tokens

# A page is degenerate when at least this share of its tokens lies in repeated 8-grams AND the longest
# contiguous repeated stretch is at least REPEAT_RUN_MIN tokens: a page that is mostly loop. 318 real pages of
# pdf-parse-bench and olmOCR-Bench old scans score share <= 0.51 and runs <= 124, never both.
REPEAT_SHARE_MIN = 0.6
REPEAT_RUN_MIN = 120
# ... or, whatever the share, one contiguous repeated stretch of at least this many tokens. The largest honest
# run on every real page of the benchmark data and in the canary's references is 244 tokens, on a text layer that
# holds its page twice (two overlaid versions of one article page); no ground truth or human transcription passes
# 46 (docs/decisions.md; benchmarks/quality/bench_quality_guards.py). The loops that stopped with "stop" in issue
# reports ran 354+.
LOOP_RUN_MIN = 300
# ... or a unit copied at least three times in a row (the stretch is at least twice its period) over at least
# this many tokens: a line or a block of lines looping. Honest pages never copy a unit three times in a row over
# more than 46 tokens (a LaTeX formula's repeated subscripts); 15 copies of a 3-line block run 400 and more.
LOOP_COPIES_RUN_MIN = 80
# A unit of 1-8 characters repeated at least this many times in a row (whitespace collapsed): "0000...",
# "ababab...", "\\\\\\\\". olmOCR-Bench fails 30 copies of a short n-gram; 150 leaves room for honest runs of
# letters and digits (none on the real pages passes 100) while any token-limit loop runs far past it.
CHAR_RUN_MIN = 150
# A unit of punctuation only (a rule of dashes, dot leaders, an underline to sign on) is drawn, not written: real
# text layers hold rules of 1,087 dashes and dot leaders of 155 dots. Only a run past this is a loop.
PUNCT_RUN_MIN = 3000
_CHAR_RUN = re.compile(r"(.{1,8}?)\1{29,}", re.DOTALL)
_CHAR_UNIT_MAX, _CHAR_COPIES_MIN = 8, 30  # the regex's unit lengths and copies, for its prefilter
_WORDY = re.compile(r"\w")


@dataclass(frozen=True)
class Repetition:
    """Repeated n-grams and character runs of one text, and the loop verdict."""

    share: float  # tokens inside a word 8-gram that already occurred on the page, over all tokens
    longest_run: int  # tokens in the longest contiguous stretch of such repeats
    period: int  # tokens back to the earlier copy of the longest stretch (0 without one)
    char_run: int  # characters in the longest run of one 1-8 character unit repeated 30 times or more
    degenerate: bool


def repetition(text: str, text_layer: str = "", found: Tokens | None = None) -> Repetition:
    """Measure repeated word n-grams and character runs; `degenerate` when they look like a model loop.

    `text_layer` is the page's trusted text layer ("" without one): a stretch it repeats as often is no loop.
    `found` is the text's tokens when the caller already has them (`repeats.tokens(text)`).
    """
    found = found if found is not None else tokens(text)
    longest = max(found.runs, key=lambda r: r.length, default=RepeatRun(0, 0, 0))
    char_run, char_loop = _char_runs(text)
    mostly_loop = found.share >= REPEAT_SHARE_MIN and longest.length >= REPEAT_RUN_MIN
    degenerate = char_loop or any(
        (_long_loop(r) or (mostly_loop and r is longest)) and not layer_explains(found, r, text_layer)
        for r in found.runs
    )
    return Repetition(round(found.share, 4), longest.length, longest.period, char_run, degenerate)


def _long_loop(run: RepeatRun) -> bool:
    """A stretch past the length honest pages reach, or a unit copied three times in a row over 80 tokens."""
    if run.length >= LOOP_RUN_MIN:
        return True
    return run.length >= LOOP_COPIES_RUN_MIN and run.length >= 2 * run.period


@functools.lru_cache(maxsize=8)
def _char_runs(text: str) -> tuple[int, bool]:
    """(characters in the longest short unit repeated 30+ times, whether some such run is a loop).

    Cached: the engine judges an answer (degenerate.degenerate_reason) and the stage stores its signals of the
    same words.
    """
    squeezed = " ".join(text.split())
    if not _may_hold_char_run(squeezed):
        return 0, False
    longest, loop = 0, False
    for match in _CHAR_RUN.finditer(squeezed):
        size = len(match.group(0))
        longest = max(longest, size)
        loop = loop or (size >= CHAR_RUN_MIN and (bool(_WORDY.search(match.group(1))) or size >= PUNCT_RUN_MIN))
    return longest, loop


def _may_hold_char_run(text: str) -> bool:
    """Whether some stretch of the text has a period of 1-8 characters over 30 copies: where _CHAR_RUN can match.

    A unit of n characters copied 30 times makes every character equal the one n places on, 29 * n times in a
    row. Testing that on the code points is a few array operations; the regex tries 8 units at every position.
    """
    points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    for unit in range(1, _CHAR_UNIT_MAX + 1):
        need = _CHAR_COPIES_MIN * unit - unit  # positions equal to their neighbour `unit` on
        if len(points) - unit < need:
            return False
        same = np.concatenate(([0], np.cumsum(points[unit:] == points[:-unit], dtype=np.int64)))
        if np.any(same[need:] - same[:-need] == need):
            return True
    return False
