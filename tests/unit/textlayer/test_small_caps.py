"""Text in a small-capitals font reads as the capitals the page shows; other fonts keep their case."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest

from ocr_pipeline.textlayer.reader import extract_page_text
from tests.support.builders.glyph_pdfs import small_caps_pdf

SMALL_CAP, NONSYMBOLIC_SERIF = 1 << 17, 0x22


def _text(font_name: str, flags: int) -> str:
    doc = pdfium.PdfDocument(small_caps_pdf(font_name, flags))
    try:
        return extract_page_text(doc[0])
    finally:
        doc.close()


def test_small_caps_font_reads_as_capitals() -> None:
    # An expert small-caps font, flagged SmallCap and named so: an author's name in a reference list.
    assert _text("TimesTen-RomanSC", SMALL_CAP | NONSYMBOLIC_SERIF) == "MILLOTTE J.-P. (1959)\nplain text here"


@pytest.mark.parametrize(
    ("name", "flags"),
    [
        ("TimesTen-Roman", SMALL_CAP | NONSYMBOLIC_SERIF),  # TeX's Latin Modern fonts set the flag on any font
        ("TimesTen-RomanSC", NONSYMBOLIC_SERIF),  # the name alone: "SC" may be Simplified Chinese
    ],
)
def test_flag_or_name_alone_keeps_the_case(name: str, flags: int) -> None:
    assert _text(name, flags) == "Millotte J.-P. (1959)\nplain text here"
