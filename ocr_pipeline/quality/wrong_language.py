"""Wrong language: an answer in another language than the page's trusted text layer, by a wide margin.

A model that answers an English page in German or Russian (a translation, or a page from its training data) has
not transcribed the page. The trusted text layer is the page's own words, so its language is the page's: the
answer is compared with it while the engine can still retry. The margin keeps honest pages out: both sides need
enough prose to judge, a different script must dominate both sides, and a different language (same script) must
be near certain on both sides, so a bilingual page, a formula page or a short page is never retried.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter

from ocr_pipeline.quality.language_detector import best_language

# Letters of prose on each side before anything is judged: langdetect guesses on less, and a short page
# (a title, a figure caption) costs little if it is wrong.
MIN_LETTERS = 200
# A script "dominates" a text when it holds this share of its letters: a bilingual Latin/Cyrillic page does not.
SCRIPT_SHARE = 0.9
# langdetect's probability both sides must reach for their languages to count as different.
LANGUAGE_PROB = 0.95
# Characters judged per side: enough for a confident detection (3,000 catch as many real pages as 6,000 did), and
# langdetect's cost grows with the length.
MAX_JUDGED = 3000
# Math, tags and LaTeX commands are not prose in any language: langdetect reads `\frac{a}{b}` as Catalan.
_NOT_PROSE = re.compile(
    r"\$\$.*?\$\$|\$[^$\n]*\$|\\\[.*?\\\]|\\\(.*?\\\)|<[^>]{1,200}>|\\[A-Za-z]+|!\[[^\]]*\]\([^)]*\)", re.DOTALL
)
# Unicode name prefixes grouped by writing system: Japanese mixes kanji and kana, which is one page's script.
_SCRIPT_OF = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "CJK": "CJK", "HANGUL": "HANGUL"}


def prose(text: str) -> str:
    """The text without math, HTML tags, LaTeX commands and image links: what a language detector should read."""
    return _NOT_PROSE.sub(" ", text)


@functools.lru_cache(maxsize=4096)
def script(char: str) -> str:
    """The writing system of one letter, from its Unicode name ("LATIN", "CYRILLIC", "CJK", ...)."""
    first = unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]
    return _SCRIPT_OF.get(first, first)


def dominant_script(text: str) -> tuple[str | None, float, int]:
    """(script, its share of the letters, letters) of the text's most common script; (None, 0, 0) without letters."""
    # Counted per distinct character, then per script: a page holds a few dozen distinct letters among thousands.
    # Scripts enter `counts` in the order of their first letter in the text, so ties resolve as letter by letter.
    counts: Counter[str] = Counter()
    for char, n in Counter(text).items():
        if char.isalpha():
            counts[script(char)] += n
    letters = sum(counts.values())
    if not letters:
        return None, 0.0, 0
    name, n = counts.most_common(1)[0]
    return name, n / letters, letters


@functools.lru_cache(maxsize=128)
def detected_language(text: str) -> tuple[str, float] | None:
    """langdetect's most likely language and its probability; None where it finds no feature to go by.

    Cached: the engine judges an answer while it can retry, and its signals judge the same words again.
    """
    return best_language(text)


def wrong_language(answer: str, text_layer: str) -> str | None:
    """Why `answer` is in another language than `text_layer` ("de, the text layer's en"); None if not clearly so."""
    ours, theirs = prose(answer)[:MAX_JUDGED], prose(text_layer)[:MAX_JUDGED]
    our_script, our_share, our_letters = dominant_script(ours)
    their_script, their_share, their_letters = dominant_script(theirs)
    if our_letters < MIN_LETTERS or their_letters < MIN_LETTERS:
        return None
    if our_script != their_script:
        # A page in two scripts (a Russian-English glossary) has no dominant one on either side: not judged.
        if our_share >= SCRIPT_SHARE and their_share >= SCRIPT_SHARE:
            return f"{str(our_script).lower()} script, the text layer's {str(their_script).lower()}"
        return None
    # The answer first: the front-matter check detects the same words (a cache hit), and an answer langdetect is
    # unsure of is judged without detecting the layer's language at all.
    ours_lang = detected_language(ours)
    if ours_lang is None or ours_lang[1] < LANGUAGE_PROB:
        return None
    theirs_lang = detected_language(theirs)
    if theirs_lang is None or ours_lang[0] == theirs_lang[0] or theirs_lang[1] < LANGUAGE_PROB:
        return None
    return f"{ours_lang[0]}, the text layer's {theirs_lang[0]}"


def declared_language_mismatch(answer: str, declared: str | None) -> bool | None:
    """Whether the answer's words are clearly in another language than its front matter's `primary_language`.

    None when there is nothing to judge (no declared language, under MIN_LETTERS of prose, langdetect unsure).
    A model that declares `en` and writes German has lost the page or the prompt, whatever the page holds.
    """
    if not declared:
        return None
    text = prose(answer)[:MAX_JUDGED]
    if sum(c.isalpha() for c in text) < MIN_LETTERS:
        return None
    found = detected_language(text)
    if found is None or found[1] < LANGUAGE_PROB:
        return None
    # langdetect names Chinese zh-cn / zh-tw; front matter uses ISO 639-1 (zh).
    return found[0].split("-")[0] != declared.lower().split("-")[0]
