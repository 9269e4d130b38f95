"""Page furniture is dropped (running heads, page numbers, margin stamps); body text near a margin is kept."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium

from ocr_pipeline.pdf.furniture import furniture_rows
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.pdf.reading_order import Box
from ocr_pipeline.pdf.text_layer import extract_page_text
from tests.support import layout_pdfs, pdfgen

S = pdfgen.SENTENCES


def test_running_head_and_page_numbers_dropped_on_every_page(tmp_path: Path) -> None:
    path = pdfgen.write(tmp_path / "doc.pdf", layout_pdfs.furniture_pdf(pages=3))
    for n, row in enumerate(document_pages("pdf", str(path), 300)):
        text = row["text_layer"]
        assert "Journal of Rural Studies" not in text
        assert str(40 + n) not in text.split()


def test_body_text_running_into_the_bottom_band_is_kept(tmp_path: Path) -> None:
    # 48 body lines: the last ones sit in the bottom tenth of the page, next to the page number, and the
    # same sentences recur near the margins of the other pages. They are body text all the same.
    path = pdfgen.write(tmp_path / "doc.pdf", layout_pdfs.furniture_pdf(pages=3))
    for n, row in enumerate(document_pages("pdf", str(path), 300)):
        lines = row["text_layer"].splitlines()
        assert lines[0] == S[n % 8]
        assert lines[-1] == S[(n + 47) % 8]
        assert len(lines) == 48


def test_vertical_download_stamp_in_the_margin_dropped() -> None:
    doc = pdfium.PdfDocument(layout_pdfs.stamp_pdf())
    try:
        text = extract_page_text(doc[0])
    finally:
        doc.close()
    assert "Downloaded" not in text and "example.org" not in text
    assert text.splitlines() == S


def test_short_body_line_at_the_top_is_kept_but_a_notice_is_not() -> None:
    page_h, body = 842.0, [Box(72, 300 + 14 * k, 500, 311 + 14 * k, S[k % 8]) for k in range(10)]
    title = Box(72, 60, 200, 71, "Ibanez")
    notice = Box(72, 810, 300, 818, "Download date: 28 Dec 2018")
    number = Box(290, 790, 300, 798, "17")
    drop = furniture_rows([title, notice, number, *body], 595.0, page_h)
    assert drop == {id(notice), id(number)}
