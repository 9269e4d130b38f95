"""The one language detector: langdetect's profiles in a factory of our own, loaded once per process and seeded.

langdetect samples randomly, so its seed is part of its answer; and its module-level factory is published before
its profiles finish loading, so threads detecting their first pages at once could read with half the languages.
Every caller (the CPU engine's page language, the input filter, the wrong-language signal) reads through here:
no global seed is set anywhere, and the answers are the ones langdetect's `detect` / `detect_langs` gave seeded 0.
"""

from __future__ import annotations

import functools
from typing import Any

# Fewer letters than this make a page's language a guess: page_language reports None instead.
MIN_LANG_LETTERS = 20
# What langdetect's own `detect` answers when no language is above its probability floor (0.1).
UNKNOWN_LANGUAGE = "unknown"


@functools.lru_cache(maxsize=1)
def _detectors() -> Any:
    """langdetect's profiles in a factory of our own, seeded; lru_cache returns only a fully loaded one."""
    # Imported here to save start-up time: only pages with text need it.
    from langdetect.detector_factory import PROFILES_DIRECTORY

    from ocr_pipeline.quality.langdetect_wordwise import WordwiseFactory

    factory = WordwiseFactory()  # langdetect's answers, bit for bit, in a fraction of its time
    factory.load_profile(PROFILES_DIRECTORY)
    factory.set_seed(0)  # the same text gives the same answer on every run
    return factory


def ranked_languages(text: str) -> list[tuple[str, float]] | None:
    """langdetect's languages above its 0.1 floor with their probabilities, most likely first; None where the text
    has no feature to go by."""
    # Imported here to save start-up time, like the profiles.
    from langdetect.lang_detect_exception import LangDetectException

    detector = _detectors().create()
    detector.append(text)
    try:
        return [(str(found.lang), float(found.prob)) for found in detector.get_probabilities()]
    except LangDetectException:
        return None


def best_language(text: str) -> tuple[str, float] | None:
    """The most likely language and its probability; None where langdetect finds nothing to go by."""
    ranked = ranked_languages(text)
    return ranked[0] if ranked else None


def page_language(text: str) -> str | None:
    """A page's ISO 639-1 code (langdetect's `detect`: "unknown" when no language stands out); None for too
    little text."""
    if sum(c.isalpha() for c in text) < MIN_LANG_LETTERS:
        return None
    ranked = ranked_languages(text)
    if ranked is None:
        return None
    return ranked[0][0] if ranked else UNKNOWN_LANGUAGE
