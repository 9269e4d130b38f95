"""Wrong language against the trusted text layer: caught by a wide margin on real pages, never on honest ones."""

from __future__ import annotations

import pytest

from ocr_pipeline.quality.degenerate import degenerate_reason
from ocr_pipeline.quality.wrong_language import detected_language, prose, wrong_language
from tests.support.real_pages import answer_and_reference_pairs, born_digital_layers
from tests.support.vlm_answers import GERMAN, RUSSIAN

ENGLISH = (
    "The committee met on Tuesday to review the budget. Members raised questions about the cost of the new library "
    "wing, and the chair promised a written answer before the next session. The treasurer reported that the reserve "
    "fund had grown by four percent over the year, mostly from interest on the deposits held at the county bank."
)


def test_an_english_page_answered_in_german_or_russian_is_wrong() -> None:
    assert wrong_language(GERMAN, ENGLISH) == "de, the text layer's en"
    assert wrong_language(RUSSIAN, ENGLISH) == "cyrillic script, the text layer's latin"
    assert degenerate_reason(RUSSIAN, "stop", ENGLISH) == "wrong language: cyrillic script, the text layer's latin"
    # Without a trusted layer there is nothing to judge the language by: the answer is kept.
    assert degenerate_reason(GERMAN, "stop") is None


def test_the_margin_keeps_short_bilingual_and_formula_pages() -> None:
    assert wrong_language(ENGLISH, ENGLISH) is None
    # A caption or a title: too little prose for a detector to be sure.
    assert wrong_language("Abbildung 3: Der Haushalt des Jahres 2024.", "Figure 3: the budget for 2024.") is None
    # A bilingual page whose answer reads its halves in another order than the layer (two columns).
    assert wrong_language(f"{RUSSIAN}\n\n{ENGLISH}", f"{ENGLISH}\n{RUSSIAN}") is None
    assert wrong_language(f"{GERMAN}\n\n{ENGLISH}", f"{ENGLISH}\n{GERMAN}") is None
    # LaTeX is no language: langdetect reads bare formulas as Catalan or Romanian.
    formulas = " ".join(f"$\\frac{{a_{i}}}{{b_{i}}} \\leq \\sum_{{k=1}}^{{n}} c_k$" for i in range(60))
    assert not any(c.isalpha() for c in prose(formulas))
    assert wrong_language(f"{formulas}\n{ENGLISH}", ENGLISH) is None


@pytest.mark.shared_data
def test_real_right_answers_are_never_wrong_language() -> None:
    pairs = answer_and_reference_pairs()
    # Formula pages (pdf-parse-bench) and 19th-century letters (olmOCR's answer against a human's transcription).
    wrong = [(name, why) for name, answer, reference in pairs if (why := wrong_language(answer, reference))]
    assert len(pairs) >= 200 and wrong == []


@pytest.mark.shared_data
def test_real_pages_in_another_language_are_caught_and_same_language_pages_are_not() -> None:
    layers = born_digital_layers()
    by_language: dict[str, list[str]] = {}
    for _, text in layers:
        found = detected_language(prose(text)[:6000]) if sum(c.isalpha() for c in text) >= 200 else None
        if found and found[1] >= 0.95:
            by_language.setdefault(found[0], []).append(text)
    english, others = by_language.pop("en"), [t for texts in by_language.values() for t in texts]
    # The shared data's born-digital pages are mostly English, with French, Spanish, German, Japanese and more.
    assert len(english) >= 100 and len(others) >= 30 and len(by_language) >= 8
    # A real page in another language answered for a real English page: caught, but for mixed-script pages
    # (Japanese or Macedonian with Latin names and figures), which the margin leaves alone.
    caught = [bool(wrong_language(other, page)) for other in others for page in english[:3]]
    assert sum(caught) >= 0.85 * len(caught)
    assert all(wrong_language(page, english[0]) for page in by_language["fr"] + by_language["de"])
    # Another English page is not another language: unrelated text is the agreement gate's to catch.
    assert not any(wrong_language(a, b) for a in english[:6] for b in english[6:12])
