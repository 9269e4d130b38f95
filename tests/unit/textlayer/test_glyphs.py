"""Text-layer repairs: spacing accents, words drawn apart, TeX quotes, drop capitals, scripts, empty glyph boxes."""

from __future__ import annotations

import pypdfium2 as pdfium

from ocr_pipeline.layout.drop_caps import join_drop_caps
from ocr_pipeline.layout.reading_order import Box
from ocr_pipeline.textlayer.glyphs import Glyph, split_runs
from ocr_pipeline.textlayer.reader import extract_page_text
from tests.support.builders import layout_pdfs
from tests.support.builders.glyph_pdfs import outsize_symbol_pdf


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


def test_a_symbol_with_an_outsize_loose_box_leaves_its_line_one_line_high() -> None:
    # A math symbol font's minus sign has a loose box two lines tall: its line overlapped the next one, and the two
    # were read as one line with their runs interleaved. The glyph's ink (its tight box) measures it instead.
    doc = pdfium.PdfDocument(outsize_symbol_pdf())
    try:
        lines = extract_page_text(doc[0]).splitlines()
    finally:
        doc.close()
    assert lines == [
        "is situated in the range R - l/2 < r < R. This behaviour is easily",
        "understood from the figure, where we have plotted the",
        "shifted frequencies as a function of the radius.",
    ]


def test_drop_cap_on_its_first_lines_text_line_becomes_a_word_again() -> None:
    # A producer drew the capital and the rest of its first line as one text line: the smaller letters beside the
    # capital are no superscript of it. Its loose box rises above the line, and its advance reaches under the "y".
    g = [Glyph("D", (45, 120, 71, 160), 31.6, baseline=130.0)]
    g += [Glyph(c, (70.7 + 6 * i, 141, 76.7 + 6 * i, 154), 11.0, baseline=144.0) for i, c in enumerate("ynamic")]
    g += [Glyph("\n", None)]
    g += [Glyph(c, (70.7 + 6 * i, 127, 76.7 + 6 * i, 140), 11.0, baseline=130.0) for i, c in enumerate("scientists")]
    runs = split_runs(g, 200.0)
    assert [r.text for r in runs] == ["D", "ynamic", "scientists"]
    assert [b.text for b in join_drop_caps(runs)] == ["Dynamic", "scientists"]


def test_drop_cap_whose_loose_box_rises_a_line_above_its_first_line() -> None:
    runs = [
        Box(51, 161, 91.6, 266, "M"),  # a 100 pt capital: its first line starts 20 pt below the box's top
        Box(91.1, 181, 198, 192, "itchells Plain Festival is an"),
        Box(91.1, 191.4, 185, 202.7, "annual spectacular"),
        Box(51, 244, 206, 255, "hardware and inform the public"),
    ]
    texts = [b.text for b in join_drop_caps(runs)]
    assert texts == ["Mitchells Plain Festival is an", "annual spectacular", "hardware and inform the public"]
