"""Characters keep their order and place: what the engine writes for a line is what pdfium reports for that line."""

from __future__ import annotations

import pypdfium2 as pdfium

from ocr_pipeline.layout.reading_order import Box, join_line
from ocr_pipeline.textlayer.reader import extract_page_text
from tests.support.builders.glyph_pdfs import PAGE_WIDTH, SIZE, line_baselines, raw_text_pdf

# A superscript minus the font maps to no character (code 3), then the reference list that used to come out
# "oster, .L.,P 999.1 Mechanisms": every character after the unmapped one took its neighbour's box.
LINES = [
    "(Foster, P.L., 1994. Population dynamics of a Lac\\003 strain of)",
    "(Escherichia coli during selection for lactose utilization.)",
    "(Foster, P.L., 1999. Mechanisms of stationary phase mutation.)",
    "(Genetics 138, 253\\226261; Annual Review of Genetics 33, 57\\22688.)",
]


def _non_space(text: str) -> str:
    """Visible characters; the unmapped glyph (pdfium's 0x03, our U+FFFD) is a place, not a character."""
    return "".join(c for c in text if c.isprintable() and not c.isspace() and c != "\ufffd")


def test_each_line_holds_the_characters_pdfium_reports_for_it_in_order() -> None:
    doc = pdfium.PdfDocument(raw_text_pdf(LINES, unmapped_code=3))
    try:
        page = doc[0]
        ours = extract_page_text(page).splitlines()
        textpage = page.get_textpage()
        theirs = [
            textpage.get_text_bounded(0, y - 0.3 * SIZE, PAGE_WIDTH, y + 0.8 * SIZE) for y in line_baselines(len(LINES))
        ]
        textpage.close()
    finally:
        doc.close()
    assert len(ours) == len(LINES)
    for mine, pdfiums in zip(ours, theirs, strict=True):
        assert _non_space(mine) == _non_space(pdfiums)
    assert ours[2] == "Foster, P.L., 1999. Mechanisms of stationary phase mutation."
    assert ours[3] == "Genetics 138, 253\u2013261; Annual Review of Genetics 33, 57\u201388."


def test_a_drawn_glyph_without_a_character_stays_a_marked_place() -> None:
    doc = pdfium.PdfDocument(raw_text_pdf(LINES[:1], unmapped_code=3))
    try:
        text = extract_page_text(doc[0])
    finally:
        doc.close()
    # The unmapped glyph is written as U+FFFD (counted by the trust check), in its place, not shifted onto a neighbour.
    assert text == "Foster, P.L., 1994. Population dynamics of a Lac\ufffd strain of"


def test_rows_grouped_into_one_line_do_not_fuse_their_words() -> None:
    # A tall box beside two short rows groups them into one visual line; the second row starts left of the first's
    # end: a word break, unless the first row ended on pdfium's hyphen marker.
    first = Box(500, 390, 590, 400, "hopefully we can deliver a")
    second = Box(500, 401, 596, 409, "performance to be proud of")
    assert join_line([first, second], 0.12) == "hopefully we can deliver a performance to be proud of"
    hyphen = Box(500, 390, 590, 400, "an aware\ufffe")
    assert join_line([hyphen, Box(500, 401, 596, 409, "ness of sleep")], 0.12) == "an aware\ufffeness of sleep"


def test_a_hyphen_at_a_line_break_still_joins_its_word() -> None:
    # pdfium reports the line-end hyphen as U+FFFE (0x02 by index): a marker, not an unmapped glyph.
    doc = pdfium.PdfDocument(raw_text_pdf(["(In all of them the king is recog-)", "(nized to be the authority)"]))
    try:
        text = extract_page_text(doc[0])
    finally:
        doc.close()
    assert text == "In all of them the king is recognized to be the authority"
