"""Footnotes at the foot of a column are read after the body, so a sentence running on into the next column stays
whole; captions and small print inside a column keep their place."""

from __future__ import annotations

import io

import pypdfium2 as pdfium
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from ocr_pipeline.layout.boxes import Box
from ocr_pipeline.layout.footnotes import footnote_ids
from ocr_pipeline.textlayer.reader import extract_page_text

LEFT = [f"left column body sentence {i:02d} goes on" for i in range(30)]
RIGHT = [f"right column body sentence {i:02d} goes on" for i in range(34)]
NOTE = ["Copyright 2018, an association for the advancement", "of science. All rights reserved."]


def _footnote_pdf() -> bytes:
    """Two columns of 10 pt body text; under the left column, after a short rule and a gap, a two-line note in 8 pt.
    The left column's last line ends mid-sentence; the sentence goes on at the top of the right column."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    top = A4[1] - 80
    c.setFont("Times-Roman", 10)
    for k, line in enumerate(LEFT):
        c.drawString(60, top - 12 * k, line)
    c.drawString(60, top - 12 * len(LEFT), "a sentence that runs on past the end of the")
    for k, line in enumerate(["left column into the right one.", *RIGHT]):
        c.drawString(310, top - 12 * k, line)
    note_top = top - 12 * len(LEFT) - 22
    c.line(60, note_top + 9, 150, note_top + 9)
    c.setFont("Times-Roman", 8)
    for k, line in enumerate(NOTE):
        c.drawString(60, note_top - 9.5 * k, line)
    c.save()
    return buf.getvalue()


def test_note_under_the_left_column_is_read_after_the_right_column() -> None:
    doc = pdfium.PdfDocument(_footnote_pdf())
    try:
        lines = extract_page_text(doc[0]).splitlines()
    finally:
        doc.close()
    k = lines.index("a sentence that runs on past the end of the")
    assert lines[k + 1] == "left column into the right one."
    assert lines[-2:] == NOTE


def _column(x0: float, y0: float, n: int, h: float = 10.0, pitch: float = 11.0) -> list[Box]:
    return [Box(x0, y0 + pitch * i, x0 + 230, y0 + pitch * i + h, f"body line {i} of the column") for i in range(n)]


def test_caption_under_a_figure_is_no_footnote() -> None:
    # The figure leaves a wide white gap between the text above it and its small caption.
    boxes = _column(54, 100, 20) + _column(320, 100, 50)
    boxes += [Box(54, 420 + 9 * i, 284, 428 + 9 * i, f"Figure 2. caption line {i}") for i in range(3)]
    assert footnote_ids(boxes) == set()


def test_small_print_followed_by_body_text_is_no_footnote() -> None:
    # A quotation set small inside a column: body text follows it down the column.
    boxes = _column(54, 100, 20) + _column(54, 360, 10) + _column(320, 100, 50)
    boxes += [Box(54, 330 + 9 * i, 284, 338 + 9 * i, f"quoted line {i}") for i in range(2)]
    assert footnote_ids(boxes) == set()


def test_footnote_found_in_boxes() -> None:
    boxes = _column(54, 100, 40) + _column(320, 100, 44)
    note = [Box(54, 100 + 11 * 40 + 7 + 9 * i, 284, 100 + 11 * 40 + 15 + 9 * i, f"note line {i}") for i in range(2)]
    assert footnote_ids(boxes + note) == {id(b) for b in note}


def test_small_note_beside_a_title_at_the_head_of_the_page_is_no_footnote() -> None:
    # "Published on 28 December" in small print at the top right, beside the title; nothing is below it.
    boxes = [Box(54, 70, 560, 80, "The act amending the income tax act, its number, its title and its date")]
    boxes += _column(54, 120, 40)
    boxes += [Box(400, 95 + 9 * i, 520, 103 + 9 * i, f"published note {i}") for i in range(2)]
    assert footnote_ids(boxes) == set()


def test_small_print_over_a_table_at_the_foot_is_no_footnote() -> None:
    # A table's header row set small, the table itself (one box of HTML) below it at the foot of the column.
    boxes = _column(54, 100, 30) + _column(320, 100, 44)
    header = Box(54, 100 + 11 * 30 + 10, 284, 100 + 11 * 30 + 18, "Parameter Value")
    table = Box(54, 100 + 11 * 30 + 20, 284, 100 + 11 * 44, "<table><tr><td>20-80 J</td></tr></table>")
    assert footnote_ids([*boxes, header, table]) == set()
