"""Layout rules real pages needed (olmOCR-Bench's history sets): line numbers beside ruled text, scripts from loose
boxes, plain hyphens at line ends, and a margin mark beside a line that crosses the gutter."""

from __future__ import annotations

import io

import pypdfium2 as pdfium
from reportlab.pdfgen import canvas

from ocr_pipeline.layout.boxes import Rule
from ocr_pipeline.layout.reading_order import Box, order_lines
from ocr_pipeline.layout.table_html import find_tables
from ocr_pipeline.textlayer.reader import clean_text, extract_page_text


def test_margin_line_numbers_between_rules_make_no_table() -> None:
    # A journal proof numbers every line; a ruled box (a boxed note) around some of them once made the numbers,
    # the text and the numbers of the other margin a three-column "table".
    lines = [f"proof text of the article on line {i:02d} with words" for i in range(12)]
    boxes = [Box(40, 100 + 10.5 * i, 280, 108 + 10.5 * i, t) for i, t in enumerate(lines)]
    boxes += [Box(5, 101 + 10.5 * i, 13, 107 + 10.5 * i, str(423 + i)) for i in range(12)]
    boxes += [Box(574, 101 + 10.5 * i, 582, 107 + 10.5 * i, str(486 + i)) for i in range(12)]
    rules = [Rule(5, 130, 582, 130), Rule(5, 165, 582, 165), Rule(5, 200, 582, 200)]
    rest, tables = find_tables(boxes, rules)
    assert tables == []
    texts = [" ".join(b.text for b in line) for line in order_lines(rest)]
    assert [t for t in texts if not t.isdigit()] == lines  # no number glued into a sentence


def _scripts_pdf() -> bytes:
    """'The modal parameters m_i, c_i' with the subscripts set smaller and dropped by only 1 pt, once through a
    scaled text matrix (Tf 1, the size in Tm: pdfium reports font size 1 for every glyph) and once plainly."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(400, 200))
    for y, scaled in ((150, True), (100, False)):
        t = c.beginText()
        x = 20.0
        for text, size, rise in (("The modal parameters m", 12, 0), ("i", 8, -1), (", c", 12, 0), ("i", 8, -1)):
            if scaled:
                t.setFont("Helvetica", 1)
                t.setTextTransform(size, 0, 0, size, x, y + rise)
            else:
                t.setFont("Helvetica", size)
                t.setTextOrigin(x, y + rise)
            t.textOut(text)
            x += c.stringWidth(text, "Helvetica", size)
        t.textOut(" and more body text here")
        c.drawText(t)
    c.save()
    return buf.getvalue()


def test_small_dropped_subscripts_stand_apart_also_under_a_scaled_text_matrix() -> None:
    doc = pdfium.PdfDocument(_scripts_pdf())
    try:
        lines = extract_page_text(doc[0]).splitlines()
    finally:
        doc.close()
    assert [line.split(" and")[0] for line in lines] == ["The modal parameters m i , c i"] * 2


def test_plain_hyphen_between_lower_case_halves_joins_the_word() -> None:
    assert clean_text("respec-\ntively and Kelu- \n wesan") == "respectively and Keluwesan"
    # Not after a capital or a digit, nor before one: "N-fertilised", "1990-1991", "ab-\nThe".
    assert clean_text("N-\nfertilised 1990-\n1991 ab-\nThe") == "N-\nfertilised 1990-\n1991 ab-\nThe"


def test_margin_mark_beside_a_crossing_footnote_does_not_interleave_the_columns() -> None:
    # A footnote spans the left column and part of the gutter; a one-letter mark in the right margin stands beside
    # it, and the two columns' baselines are offset so their lines overlap into one horizontal strip.
    left = [f"left column prose line {i:02d} of the page" for i in range(8)]
    right = [f"right column prose line {i:02d} of the page" for i in range(8)]
    boxes = [Box(130, 370, 390, 382, "3 A footnote under the table that reaches past the gutter.")]
    boxes.append(Box(568, 379, 590, 415, "C"))
    for i in range(8):
        boxes.append(Box(41, 403 + 12 * i, 277, 416 + 12 * i, left[i]))
        boxes.append(Box(314, 405.5 + 12 * i, 549, 418.5 + 12 * i, right[i]))
    texts = [" ".join(b.text for b in line) for line in order_lines(boxes)]
    body = [t.removesuffix(" C") for t in texts if "column" in t]  # the mark may stay on the line it stands beside
    assert body == left + right
