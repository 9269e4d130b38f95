"""Word breaks from the line's own spacing: tight lines set word by word get their spaces, words are never split."""

from __future__ import annotations

import pypdfium2 as pdfium

from ocr_pipeline.textlayer.reader import extract_page_text
from tests.support.builders.glyph_pdfs import positioned_words, raw_text_pdf

TIGHT = "He is out of contract in the summer of next year"


def _text(lines: list[str]) -> list[str]:
    doc = pdfium.PdfDocument(raw_text_pdf(lines))
    try:
        return extract_page_text(doc[0]).splitlines()
    finally:
        doc.close()


def test_a_tight_line_set_word_by_word_gets_its_spaces() -> None:
    # Words 0.11 em apart and no space character: a newspaper's justified line; pdfium generates no space there.
    assert _text([positioned_words(TIGHT.split(), 110)]) == [TIGHT]


def test_uneven_kerning_inside_words_does_not_hide_the_word_gaps() -> None:
    assert _text([positioned_words(TIGHT.split(), 110, kern=10)]) == [TIGHT]


def test_kerned_words_are_not_split() -> None:
    # Letters nudged 0.03 em either way (kerning pairs), words with real spaces, and a long line with no space at all.
    spaced = positioned_words(["Mechanisms of stationary phase mutation"], 0, kern=30)
    unspaced = positioned_words(["Escherichiacolistrainsundergoingselection"], 0, kern=30)
    assert _text([spaced, unspaced]) == [
        "Mechanisms of stationary phase mutation",
        "Escherichiacolistrainsundergoingselection",
    ]
