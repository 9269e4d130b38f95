"""The PDF text layer: reading order of real PDFs and the trust decision."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest
from rapidfuzz import fuzz

from ocr_pipeline.textlayer.reader import assess_text_layer, clean_text, extract_page_text
from tests.support.builders import pdfgen

S = pdfgen.SENTENCES


def _text(pdf: bytes, page: int = 0) -> str:
    doc = pdfium.PdfDocument(pdf)
    try:
        return extract_page_text(doc[page])
    finally:
        doc.close()


def _positions(text: str, sentences: list[str]) -> list[int]:
    flat = " ".join(text.split())
    for s in sentences:
        assert fuzz.partial_ratio(s, flat) >= 90, s
    return [flat.find(s[:20]) for s in sentences]


def test_sentences_in_order_on_every_page() -> None:
    pdf = pdfgen.text_pdf([S[:4], S[4:]])
    for page, sentences in ((0, S[:4]), (1, S[4:])):
        positions = _positions(_text(pdf, page), sentences)
        assert positions == sorted(positions) and -1 not in positions


def test_two_columns_read_column_by_column() -> None:
    text = _text(pdfgen.two_column_pdf(S[:4], S[4:]))
    positions = _positions(text, S)
    assert positions == sorted(positions) and -1 not in positions


def test_rotated_page_text_is_still_extracted() -> None:
    positions = _positions(_text(pdfgen.text_pdf([S[:3]], rotate=90)), S[:3])
    assert positions == sorted(positions)


def test_scan_has_no_text_layer_and_is_not_trusted() -> None:
    text = _text(pdfgen.scan_pdf(pdfgen.text_pdf([S[:2]]), dpi=50))
    assert text == ""
    quality = assess_text_layer(text, 595 * 842)
    assert not quality.trusted and quality.reason == "too little text"


def test_good_text_layer_is_trusted() -> None:
    quality = assess_text_layer(_text(pdfgen.text_pdf([S])), 595 * 842)
    assert quality.trusted, quality
    assert quality.stats["chars"] > 300 and quality.stats["chars_per_a4"] > 300


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (" ".join(["(cid:12)(cid:40)(cid:7) word"] * 20), "unmapped glyphs (cid:NN)"),
        ("Some text \ufffd\ufffd\ufffd\ufffd with \ue000\ue001\ue002 private glyphs " * 3, "replacement"),
        (" ".join("The quick brown fox jumps over the lazy dog " * 2), "letters spaced apart"),
        ("Thequickbrownfoxjumpsoverthelazydog " * 4, "implausibly long words"),
        ("Wkh txlfn eurzq ira mxpsv ryhu wkh odcb grj qhdu wkh ulyhu edqn. " * 6, "implausible letter mix"),
        ("=+-*/ <> [] {} () ... ;; :: ~~ ^^ || && %% $$ ## @@ !! ?? " * 3, "too few letters"),
        # Kerning read as spaces: words in pieces, no single letters apart (pdf-parse-bench has such layers).
        (
            "Put mo re to ugh pl ayer re sult. Mi ssion li ke he re pa st bo dy. Ne xt gl ass ce ntury. " * 4,
            "words broken",
        ),
    ],
)
def test_garbage_text_layers_are_not_trusted(text: str, reason: str) -> None:
    quality = assess_text_layer(text)
    assert not quality.trusted
    assert quality.reason.startswith(reason), quality


def test_text_with_common_short_words_is_not_broken() -> None:
    text = " ".join(pdfgen.SENTENCES) + " It is up to us to go on as we do if it is so. "
    assert assess_text_layer(text * 3).trusted


def test_clean_text_joins_hyphen_artefacts_and_flags_controls() -> None:
    assert clean_text("shoul\ufffeder") == "shoulder"
    assert clean_text("seri\ufffe\nous soft\u00adware") == "serious software"
    assert clean_text("a\x10b") == "a\ufffdb"


def test_clean_text_writes_an_ellipsis_after_a_word_as_three_periods() -> None:
    # The way people type it, and the way olmOCR-Bench's ground truth writes it even where the page sets U+2026.
    assert clean_text("ne peut décemment être\u2026 nôtre") == "ne peut décemment être... nôtre"


def test_clean_text_keeps_an_ellipsis_between_terms_of_a_formula() -> None:
    assert clean_text("a 1 , \u2026 , a n") == "a 1 , \u2026 , a n"
