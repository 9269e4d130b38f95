"""The word-at-a-time detector gives langdetect's own answers: the same kept text, n-grams and probabilities."""

from __future__ import annotations

import functools

import pytest
from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory

from ocr_pipeline.quality import langdetect_wordwise
from ocr_pipeline.quality.langdetect_wordwise import WordwiseFactory
from tests.support.real_pages import born_digital_layers, real_page_texts
from tests.support.vlm_answers import GERMAN, RUSSIAN

# What langdetect's character loops treat specially: runs of spaces, capitals (words in capitals yield no n-grams
# past their first letter), URLs and e-mail addresses, Vietnamese marks, scripts it maps to one letter, punctuation
# it reads as a space, text that is mostly non-Latin (its Latin letters are dropped).
EDGE_TEXTS = (
    "  two  spaces   and three   ", "NASA and the UN met in GENEVA; OK?", "AbC dEF GHi jKL", "x", "A", " a", "a ",
    "see https://example.org/a?b=c or write to someone@example.com today", "Tiếng Việt có dấu, Tie\u0302\u0301ng",
    "日本語のテキスト、カタカナ、ひらがな", "한국어 텍스트입니다", "Ελληνικά κείμενα εδώ",
    "مرحبا بالعالم یک", "ș ț Ș Ț română",
    "Ǆemal ǅ ǆ ᾈ", "\u00a0non\u2003breaking\u3000spaces\ufeff", "line\nbreaks\tand\r\ntabs", "«quotes» — dashes – …",
    "Москва is a city, Москва — город", "中文 text mixed 中文", GERMAN, RUSSIAN, GERMAN.upper(), "é" * 40,
    "ABCD " * 300,
)  # fmt: skip


@functools.lru_cache(maxsize=2)
def _factory(kind: type[DetectorFactory]) -> DetectorFactory:
    return _loaded(kind())


def _loaded(factory: DetectorFactory) -> DetectorFactory:
    factory.load_profile(PROFILES_DIRECTORY)
    factory.set_seed(0)
    return factory


def _answer(factory: DetectorFactory, text: str) -> tuple[str, list[str], list[tuple[str, float]]]:
    """(the text the detector keeps, its n-grams, its languages with their probabilities as floats)."""
    detector = factory.create()
    detector.append(text)
    detector.cleaning_text()
    grams = detector._extract_ngrams()
    fresh = factory.create()
    fresh.append(text)
    try:
        ranked = [(str(found.lang), float(found.prob)) for found in fresh.get_probabilities()]
    except Exception as error:  # noqa: BLE001 - "no features in text" must be the same error on both sides
        ranked = [(type(error).__name__, 0.0)]
    return detector.text, grams, ranked


def _same(texts: list[str], ours: DetectorFactory | None = None) -> list[str]:
    """The texts on which the two detectors differ in anything."""
    wordwise = ours or _factory(WordwiseFactory)
    return [t[:60] for t in texts if _answer(_factory(DetectorFactory), t) != _answer(wordwise, t)]


def test_edge_texts_get_langdetects_own_answers() -> None:
    assert _same(list(EDGE_TEXTS)) == []
    # The last ones hold features, so probabilities were compared and not only "no features" errors.
    assert _answer(_factory(WordwiseFactory), GERMAN)[2][0][0] == "de"


@pytest.mark.shared_data
def test_real_pages_in_many_languages_get_langdetects_own_answers() -> None:
    layers = [text for _, text in born_digital_layers()]
    truths = [text for _, text in real_page_texts()]
    # Short texts are where the sampling is closest to a toss-up; 3,000 characters is what the signals judge.
    texts = [t[:300] for t in layers + truths] + [t[:3000] for t in layers[::4] + truths[::8]]
    assert len(texts) >= 600 and _same(texts) == []


def test_answers_stay_the_same_when_the_memos_start_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(langdetect_wordwise, "MEMO_MAX", 3)
    monkeypatch.setattr(langdetect_wordwise, "MEMO_WORD_MAX", 6)
    factory = _loaded(WordwiseFactory())
    texts = [*EDGE_TEXTS[:6], GERMAN, RUSSIAN, GERMAN, "日本語のテキスト、カタカナ、ひらがな" * 3]
    assert _same(texts, factory) == []
    assert 0 < len(factory.normalised) <= 3 and 0 < len(factory.word_ngrams) <= 3
    assert all(len(word) <= 6 for word, _ in factory.word_ngrams)
