"""Repeated stretches of a page's text: where a word 8-gram recurs, the contiguous runs of such repeats, how far
back their earlier copy lies, and how often the page's own text layer holds the same words.

The loop verdict (repetition.py) and the duplicated-paragraph verdict (duplicates.py) both read these runs; the
text is tokenised once per page.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field

# Words and numbers, HTML tags and LaTeX commands removed first: markup repeats on every honest table row
# (`</td><td>`, `\\columncolor`), while a copied row still repeats in its cell contents.
_TOKEN = re.compile(r"\w+")
_MARKUP = re.compile(r"<[^<>]{1,200}>|\\[a-zA-Z]+")
# A soft hyphen where a text layer breaks a word across lines (pdfium writes U+FFFE): the word is one token.
_SOFT_HYPHEN = re.compile(r"[\u00ad\ufffe]\s*")
# A word 8-gram seen before on the same page is a repeat. Shorter n-grams repeat in honest prose and tables
# ("of the", "</td><td>"); 8 tokens of the same order twice is rare outside boilerplate and loops.
NGRAM = 8


@dataclass(frozen=True)
class RepeatRun:
    """A contiguous stretch of tokens whose every 8-gram occurred earlier on the page."""

    start: int  # first token of the stretch
    end: int  # one past its last token
    period: int  # tokens back to the nearest earlier copy (the length of the repeating unit in a loop)

    @property
    def length(self) -> int:
        """Tokens in the stretch."""
        return self.end - self.start


@dataclass
class Tokens:
    """A text's tokens, its repeated runs and the share of tokens they cover."""

    words: list[str]
    runs: list[RepeatRun]
    share: float
    _counts: Counter[tuple[str, ...]] | None = field(default=None, repr=False)

    def gram_counts(self) -> Counter[tuple[str, ...]]:
        """How often each 8-gram occurs in the text (counted on first use: only long runs need it)."""
        if self._counts is None:
            self._counts = _gram_counts(self.words)
        return self._counts

    def grams(self, run: RepeatRun) -> list[tuple[str, ...]]:
        """The 8-grams that start inside the run."""
        return [tuple(self.words[s : s + NGRAM]) for s in range(run.start, run.end - NGRAM + 1)]


def word_tokens(text: str) -> list[str]:
    """The text's words and numbers, lower case, markup removed."""
    return _TOKEN.findall(_MARKUP.sub(" ", _SOFT_HYPHEN.sub("", text.lower())))


@functools.lru_cache(maxsize=8)
def tokens(text: str) -> Tokens:
    """Tokenise the text and find its repeated runs (one pass over its 8-grams).

    Cached: the engine judges an answer (degenerate.degenerate_reason) and the stage stores its signals of the
    same words; callers read the result and never change it.
    """
    words = word_tokens(text)
    return Tokens(words, *repeat_runs(words))


def repeat_runs(words: list[str]) -> tuple[list[RepeatRun], float]:
    """(the runs of consecutive repeated 8-grams, the share of tokens inside a repeated 8-gram)."""
    if len(words) < NGRAM:
        return [], 0.0
    last: dict[tuple[str, ...], int] = {}
    runs: list[RepeatRun] = []
    covered_until = covered = 0  # tokens before covered_until are already counted as covered
    run_start, period = -1, 0
    for start in range(len(words) - NGRAM + 1):
        gram = tuple(words[start : start + NGRAM])
        seen = last.get(gram)
        last[gram] = start
        if seen is None:
            if run_start >= 0:
                runs.append(RepeatRun(run_start, start - 1 + NGRAM, period))
                run_start = -1
            continue
        end = start + NGRAM
        covered += end - max(start, covered_until)
        covered_until = end
        if run_start < 0:
            run_start, period = start, start - seen
        else:
            period = min(period, start - seen)
    if run_start >= 0:
        runs.append(RepeatRun(run_start, len(words), period))
    return runs, covered / len(words)


def _gram_counts(words: list[str]) -> Counter[tuple[str, ...]]:
    return Counter(tuple(words[s : s + NGRAM]) for s in range(len(words) - NGRAM + 1))


@functools.lru_cache(maxsize=16)
def layer_counts(text_layer: str) -> Counter[tuple[str, ...]]:
    """How often each 8-gram occurs in a text layer (cached: every attempt at a page judges against one layer)."""
    return _gram_counts(word_tokens(text_layer))


def layer_copies(found: Tokens, run: RepeatRun, text_layer: str) -> str:
    """How the layer holds the run's words: "as often" as the text, "fewer" times (but at least once), "absent".

    Judged by the majority of the run's 8-grams, so a hyphenated word or a misread letter changes nothing.
    """
    if not text_layer:
        return "absent"
    theirs, ours = layer_counts(text_layer), found.gram_counts()
    grams = found.grams(run)
    as_often = sum(theirs[g] >= ours[g] for g in grams)
    present = sum(theirs[g] > 0 for g in grams)
    if 2 * as_often >= len(grams):
        return "as often"
    return "fewer" if 2 * present >= len(grams) else "absent"


def layer_explains(found: Tokens, run: RepeatRun, text_layer: str) -> bool:
    """Whether the page's trusted text layer repeats the run's words as often as the text does."""
    return layer_copies(found, run, text_layer) == "as often"
