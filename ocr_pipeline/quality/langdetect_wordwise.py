"""langdetect's detector with its character-by-character Python loops done a word at a time: the same answers.

langdetect 1.0.9 (pinned) spends most of a page's detection walking the text one character at a time: collapsing
spaces, normalising each character and sliding its 1-3 character window over the text, which costs about as much as
the seeded sampling that follows. Its answer depends only on the text it keeps, the list of n-grams it builds from
that text and its seeded sampling of the list. Here the text is kept with one regex and the list is built from the
text's words (a word's n-grams depend on the word alone, so a word seen before costs a dictionary lookup); the
sampling is langdetect's own. The text, the list and so the probabilities are langdetect's, bit for bit
(tests/unit/quality/test_langdetect_wordwise.py compares them on real pages in many languages).
"""

from __future__ import annotations

import re
from typing import Any

from langdetect.detector import Detector
from langdetect.detector_factory import DetectorFactory
from langdetect.lang_detect_exception import ErrorCode, LangDetectException
from langdetect.utils.ngram import NGram

# Runs of spaces langdetect's `append` collapses to one (it drops a space that follows a space).
_SPACES = re.compile(" {2,}")
# Entries each memo may hold before it starts afresh, and the longest word it keeps: distinct characters and
# words are few on real pages and words short, but a text chooses them (a line of Chinese is one "word"), and
# memory must stay bounded: 20,000 words of up to 24 letters stay under about 100 MB even if every one is new.
MEMO_MAX = 20_000
MEMO_WORD_MAX = 24


class _Normalised(dict[int, str]):
    """NGram.normalize of each code point, computed on first sight; str.translate reads it as its table."""

    def __missing__(self, point: int) -> str:
        value = NGram.normalize(chr(point))
        if len(self) >= MEMO_MAX:
            self.clear()
        self[point] = value
        return value


class WordwiseFactory(DetectorFactory):
    """langdetect's factory, making WordwiseDetectors that share one memo of characters and words."""

    def __init__(self) -> None:
        super().__init__()
        self.normalised = _Normalised()
        self.word_ngrams: dict[tuple[str, bool], tuple[str, ...]] = {}

    def _create_detector(self) -> WordwiseDetector:
        if not self.langlist:
            raise LangDetectException(ErrorCode.NeedLoadProfileError, "Need to load profiles.")
        return WordwiseDetector(self)


class WordwiseDetector(Detector):
    """langdetect's Detector, building its n-gram list a word at a time."""

    def __init__(self, factory: WordwiseFactory) -> None:
        super().__init__(factory)
        self._factory = factory

    def append(self, text: str) -> None:
        """As Detector.append: URLs and e-mail addresses blanked, Vietnamese marks joined, runs of spaces collapsed."""
        text = self.URL_RE.sub(" ", text)
        text = self.MAIL_RE.sub(" ", text)
        text = NGram.normalize_vi(text)
        self.text += _SPACES.sub(" ", text[: self.max_text_length])

    def _extract_ngrams(self) -> list[str]:
        """As Detector._extract_ngrams: the window restarts at every space, so the list is each word's n-grams."""
        words = self.text.translate(self._factory.normalised).split(" ")
        memo = self._factory.word_ngrams
        known = self.word_lang_prob_map
        result: list[str] = []
        last = len(words) - 1
        for i, word in enumerate(words):
            if not word:
                continue  # a space after a space (or at the start) adds nothing
            if len(word) > MEMO_WORD_MAX:
                result.extend(_word_ngrams(word, i < last, known))
                continue
            key = (word, i < last)
            found = memo.get(key)
            if found is None:
                found = _word_ngrams(word, i < last, known)
                if len(memo) >= MEMO_MAX:
                    memo.clear()
                memo[key] = found
            result.extend(found)
        return result


def _word_ngrams(word: str, spaced: bool, known: dict[str, Any]) -> tuple[str, ...]:
    """The n-grams langdetect's NGram window yields over one normalised word (and the space after it if `spaced`)
    that its profiles know, in its order; none while the window is inside a word in capitals."""
    found: list[str] = []
    grams, capital_word = " ", False
    for char in word + " " if spaced else word:
        previous = grams[-1]
        grams = (grams[1:] if len(grams) >= NGram.N_GRAM else grams) + char
        if not char.isupper():
            capital_word = False
        elif previous.isupper():
            capital_word = True
        if capital_word:
            continue
        for n in range(1, min(len(grams), NGram.N_GRAM) + 1):
            gram = grams[-n:]
            if gram != " " and gram in known:
                found.append(gram)
    return tuple(found)
