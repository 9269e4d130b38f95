"""The one language detector: seeded in its own factory, the same answer from any thread, no global seed."""

from __future__ import annotations

import importlib
from concurrent.futures import ThreadPoolExecutor

from ocr_pipeline.quality.language_detector import best_language, page_language, ranked_languages

GERMAN = "Die Katze sitzt auf der Matte und schaut aus dem Fenster in den Garten hinaus, wo die Vögel singen."
# A short, mixed text: langdetect's sampling decides it, so only a fixed seed gives one answer every time.
SHORT = "Der cat sits la mesa"


def test_the_same_text_gets_the_same_answer_from_every_thread() -> None:
    with ThreadPoolExecutor(8) as pool:
        answers = set(pool.map(lambda _: (page_language(SHORT), ranked_languages(SHORT)[0]), range(32)))
    assert len(answers) == 1
    assert page_language(GERMAN) == "de" and best_language(GERMAN)[0] == "de"


def test_too_little_text_or_no_features() -> None:
    assert page_language("ok 42") is None  # under MIN_LANG_LETTERS
    assert ranked_languages("12345 67890 !!!") is None and best_language("") is None


def test_importing_the_callers_sets_no_global_seed() -> None:
    from langdetect import DetectorFactory

    for module in ("ocr_pipeline.pdf.filters", "ocr_pipeline.engines.cpu", "ocr_pipeline.quality.wrong_language"):
        importlib.import_module(module)
    assert DetectorFactory.seed is None  # a library's global is left as it was
