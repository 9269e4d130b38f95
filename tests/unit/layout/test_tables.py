"""Tables in the text layer come out as HTML <table>s with the right cells; prose columns do not."""

from __future__ import annotations

import re

import pypdfium2 as pdfium
import pytest

from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.layout.reading_order import Box
from ocr_pipeline.layout.table_html import find_tables
from ocr_pipeline.records import PageInput
from ocr_pipeline.textlayer.reader import extract_page_text
from tests.support.builders import layout_pdfs, pdfgen


def _text(pdf: bytes) -> str:
    doc = pdfium.PdfDocument(pdf)
    try:
        return extract_page_text(doc[0])
    finally:
        doc.close()


def _rows(text: str) -> list[list[str]]:
    table = text[text.index("<table>") : text.index("</table>")]
    return [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row) for row in re.findall(r"<tr>(.*?)</tr>", table)]


@pytest.mark.parametrize("style", ["grid", "booktabs", "plain"])
def test_table_becomes_html_with_every_cell_in_place(style: str) -> None:
    text = _text(layout_pdfs.table_pdf(style))
    assert text.count("<table>") == 1
    assert _rows(text) == layout_pdfs.TABLE
    assert "<th>Region</th>" in text  # the first row is the header, as olmOCR writes it
    # The paragraphs around the table stay plain text, in order.
    assert text.index(pdfgen.SENTENCES[1]) < text.index("<table>") < text.index(pdfgen.SENTENCES[2])


@pytest.mark.parametrize("style", ["grid", "booktabs", "plain"])
def test_prose_beside_a_table_stays_out_of_its_cells(style: str) -> None:
    text = _text(layout_pdfs.side_by_side_pdf(style))
    assert text.count("<table>") == 1
    assert _rows(text) == layout_pdfs.TABLE  # no column of prose lines added to the table
    prose = " ".join(text[: text.index("<table>")].split() + text[text.index("</table>") + 8 :].split())
    for sentence in pdfgen.SENTENCES[:3]:
        assert " ".join(sentence.split()[:4]) in prose


def test_prose_in_columns_is_not_a_table() -> None:
    text = _text(pdfgen.two_column_pdf(pdfgen.SENTENCES[:4], pdfgen.SENTENCES[4:]))
    assert "<table>" not in text


def test_three_columns_of_words_are_prose_not_cells() -> None:
    words = ["the", "river", "ran", "past", "the", "old", "mill", "and", "the", "farm"]
    boxes = [
        Box(50 + 170 * c, 100 + 14 * r, 200 + 170 * c, 111 + 14 * r, " ".join(words[(r + c) % 5 :][:5]))
        for r in range(8)
        for c in range(3)
    ]
    rest, tables = find_tables(boxes)
    assert tables == [] and len(rest) == len(boxes)


def test_unruled_numbers_in_aligned_columns_are_a_table() -> None:
    boxes = [Box(50 + 90 * c, 100 + 14 * r, 80 + 90 * c, 111 + 14 * r, f"{r}.{c}") for r in range(4) for c in range(4)]
    rest, tables = find_tables(boxes)
    assert rest == [] and len(tables) == 1 and tables[0].text.count("<tr>") == 4


def test_engine_reports_is_table_exactly_for_table_pages() -> None:
    engine = CpuEngine()
    for pdf, expected in ((layout_pdfs.table_pdf("grid"), True), (pdfgen.text_pdf([pdfgen.SENTENCES]), False)):
        result = engine.ocr_page(PageInput("h", 1, None, text_layer=_text(pdf), text_layer_trusted=True))
        assert result.is_table is expected
