"""The signals' shortcuts (a prefilter, a count per distinct character) give the answers of the long way."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ocr_pipeline.quality import repetition as repetition_module
from ocr_pipeline.quality.density import chars_per_sq_in
from ocr_pipeline.quality.wrong_language import dominant_script, script
from tests.support.real_pages import real_page_texts


def _char_runs_by_regex(text: str) -> tuple[int, bool]:
    """repetition._char_runs without its prefilter: the regex over the whole text."""
    squeezed = " ".join(text.split())
    longest, loop = 0, False
    for match in repetition_module._CHAR_RUN.finditer(squeezed):
        size = len(match.group(0))
        longest = max(longest, size)
        wordy = bool(repetition_module._WORDY.search(match.group(1)))
        loop = loop or (size >= repetition_module.CHAR_RUN_MIN and (wordy or size >= repetition_module.PUNCT_RUN_MIN))
    return longest, loop


def _near_runs() -> list[str]:
    """Units of 1-8 characters copied 29, 30 and 160 times, inside prose, with spaces, a lone surrogate."""
    texts = []
    for unit in ("0", "ab", "abc", "- ", ". ", "\\\\", "xyzw", "12345", "a b c ", "abcdefg", "abcdefgh", "é\ud800"):
        for copies in (29, 30, 160):
            texts.append(f"Some prose first. {unit * copies} and prose after.")
    rng = random.Random(0)
    texts += ["".join(rng.choice("ab ") for _ in range(3000)) for _ in range(5)]
    return texts


def _prefilter_misses(texts: list[str]) -> list[tuple[str, tuple[int, bool], tuple[int, bool]]]:
    repetition_module._char_runs.cache_clear()
    found = [(text[:40], repetition_module._char_runs(text), _char_runs_by_regex(text)) for text in texts]
    return [f for f in found if f[1] != f[2]]


@pytest.mark.shared_data
def test_the_char_run_prefilter_finds_what_the_regex_finds_on_real_pages() -> None:
    assert _prefilter_misses([text for _, text in real_page_texts()]) == []


def test_the_char_run_prefilter_never_hides_a_run_the_regex_finds() -> None:
    assert _prefilter_misses(_near_runs()) == []
    # The cases meant to match do: 30 copies of a unit is a run, 29 is not.
    assert repetition_module._char_runs("x " + "ab" * 30)[0] == 60
    assert repetition_module._char_runs("x " + "ab" * 29)[0] == 0


def test_characters_per_square_inch_count_what_isspace_counts() -> None:
    spaces = "".join(chr(c) for c in range(0x3100) if chr(c).isspace())
    text = f"a{spaces}b{spaces}c\u00a0d\u200be"  # a no-break space is a space, a zero-width space is not
    non_space = len(text) - sum(c.isspace() for c in text)
    area = 8.5 * 11.0
    assert chars_per_sq_in(text, 850, 1100) == pytest.approx(round(non_space / area, 2))


def test_the_dominant_script_breaks_ties_by_the_first_letter() -> None:
    def letter_by_letter(text: str) -> tuple[str | None, float, int]:
        counts = Counter(script(c) for c in text if c.isalpha())
        if not counts:
            return None, 0.0, 0
        name, n = counts.most_common(1)[0]
        return name, n / sum(counts.values()), sum(counts.values())

    for text in ("ab αβ", "αβ ab", "ba βα ab", "日本 ab", "", "123 !", "Москва Moskva"):
        assert dominant_script(text) == letter_by_letter(text)
    assert dominant_script("αβ ab")[0] == "GREEK"
