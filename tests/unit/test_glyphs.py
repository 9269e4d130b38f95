"""Text-layer repairs: spacing accents, words drawn apart, TeX quotes, drop capitals, scripts, empty glyph boxes."""

from __future__ import annotations

import pypdfium2 as pdfium

from ocr_pipeline.pdf.glyphs import Glyph, join_drop_caps, split_runs
from ocr_pipeline.pdf.reading_order import Box
from ocr_pipeline.pdf.text_layer import extract_page_text
from tests.support import layout_pdfs


def _text() -> str:
    doc = pdfium.PdfDocument(layout_pdfs.repairs_pdf())
    try:
        return extract_page_text(doc[0])
    finally:
        doc.close()


def test_repairs_on_a_real_text_layer() -> None:
    lines = _text().splitlines()
    assert lines[0] == "Ibánez"  # the accent drawn over the a joins it (NFC)
    assert lines[1] == "THE POWER OF STORIES"  # words drawn apart without spaces get their space back
    assert lines[2] == "He said \u201cgood morning\u201d to all."
    assert lines[3] == "Wind blew across the open field"  # the drop capital starts its line
    assert lines[-1] == "came down on the village that evening."


def test_superscript_and_subscript_marked() -> None:
    g = [
        Glyph("e", (10, 0, 16, 12), 12.0),
        Glyph("2", (16, 5, 20, 13), 8.0),
        Glyph("x", (21, 0, 27, 12), 12.0),
        Glyph("i", (27, -3, 30, 5), 8.0),
    ]
    runs = split_runs(g, 100.0)
    assert [r.text for r in runs] == ["e^{2}x_{i}"]


def test_drop_cap_joined_to_first_line_only() -> None:
    runs = [
        Box(10, 10, 40, 50, "W"),
        Box(44, 12, 300, 22, "ind blew"),
        Box(44, 26, 300, 36, "and the barley"),
        Box(10, 54, 300, 64, "came down"),
    ]
    assert [b.text for b in join_drop_caps(runs)] == ["Wind blew", "and the barley", "came down"]
