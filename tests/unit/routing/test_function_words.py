"""Words of a language, not just letters: function words tell a real layer from a shifted or scrambled font map."""

from __future__ import annotations

import random

from ocr_pipeline.quality.language_detector import best_language
from ocr_pipeline.routing.function_words import FUNCTION_WORDS, function_word_share
from tests.support.builders.route_pdfs import PROSE

GERMAN = (
    "Der Ausschuss trat am Dienstag zusammen, um den Haushalt zu prüfen. Die Mitglieder stellten Fragen zu den "
    "Kosten des neuen Flügels, und der Vorsitzende versprach eine Antwort vor der nächsten Sitzung."
)


def _share(text: str) -> float:
    found = best_language(text)
    return function_word_share(text, found[0] if found else None).share


def test_real_prose_holds_function_words_and_shifted_or_scrambled_letters_do_not() -> None:
    assert _share(PROSE) > 0.3 and _share(GERMAN) > 0.3
    shifted = "".join(chr(ord(c) - 29) if c.isascii() and c.isalpha() else c for c in PROSE)
    assert best_language(shifted) is not None  # langdetect names a language for it, sure of itself
    assert _share(shifted) < 0.05
    letters = list("abcdefghijklmnopqrstuvwxyz")
    shuffled = letters[:]
    random.Random(3).shuffle(shuffled)
    table = str.maketrans("".join(letters), "".join(shuffled))
    assert _share(PROSE.lower().translate(table)) < 0.05


def test_a_language_without_a_list_names_none() -> None:
    evidence = function_word_share("これは日本語の文章です。" * 5, "ja")
    assert evidence.language is None and evidence.share == 0.0
    assert function_word_share(PROSE, "nb").language == "no"  # Norwegian's variants share one list
    assert all(len(words) >= 10 for words in FUNCTION_WORDS.values())
