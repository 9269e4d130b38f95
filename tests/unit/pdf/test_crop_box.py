"""A CropBox that hides the page's text (a strip of a sheet, half a spread) is read as its MediaBox; a print
PDF's crop away from bleed and slug is kept."""

from __future__ import annotations

import io
from pathlib import Path

import pypdfium2 as pdfium
from reportlab.pdfgen import canvas

from ocr_pipeline.pdf.crop_box import hidden_text, repair_crop_box
from ocr_pipeline.pdf.page_rows import document_pages
from tests.support.builders.page_space_pdfs import (
    LEFT_PAGE,
    RIGHT_PAGE,
    SLUG,
    bleed_pdf,
    split_spread_pdf,
    spread_pdf,
)
from tests.support.builders.pdfgen import write

DIM = 1288


def _row(path: Path) -> dict:
    (row,) = document_pages("pdf", str(path), DIM)
    return row


def test_half_of_a_spread_is_read_whole_left_page_first(tmp_path: Path) -> None:
    row = _row(write(tmp_path / "spread.pdf", spread_pdf()))
    lines = row["text_layer"].splitlines()
    assert set(LEFT_PAGE + RIGHT_PAGE) <= set(lines)
    left_end = max(i for i, x in enumerate(lines) if x in LEFT_PAGE)
    assert left_end < min(i for i, x in enumerate(lines) if x in RIGHT_PAGE)
    # The image is the whole sheet too, so a VLM reads what the text layer holds.
    assert row["width"] == DIM and abs(row["height"] - DIM * 792 / 1224) <= 1
    assert row["render_note"].startswith("CropBox [612 0 1224 792] hides ")
    assert "read and rendered the MediaBox [0 0 1224 792]" in row["render_note"]


def test_a_print_crop_keeps_its_slug_out(tmp_path: Path) -> None:
    row = _row(write(tmp_path / "bleed.pdf", bleed_pdf()))
    assert row["text_layer"].splitlines()[:3] == RIGHT_PAGE
    assert "4471" not in row["text_layer"]
    assert "CropBox" not in row["render_note"]  # only the layout's own note: "35 characters outside the page left out"
    assert row["height"] == DIM and abs(row["width"] - DIM * 612 / 792) <= 1


def test_a_hidden_paragraph_is_enough() -> None:
    # One paragraph hidden beside one shown: over 200 characters, and as many as show, so the sheet is read.
    page = pdfium.PdfDocument(spread_pdf(copies=1))[0]
    hidden, shown = hidden_text(page)
    assert hidden > 200 and abs(hidden - shown) < 20
    assert repair_crop_box(page) is not None and page.get_cropbox() == page.get_mediabox()
    assert hidden_text(page) == (0, 0)  # repaired once: nothing hides any more


def test_the_slug_is_counted_as_hidden_but_too_little() -> None:
    page = pdfium.PdfDocument(bleed_pdf())[0]
    assert hidden_text(page) == (0, 0)  # the trim keeps over 90% of the sheet: no count taken
    assert repair_crop_box(page) is None and page.get_cropbox() == (18.0, 18.0, 630.0, 810.0)
    assert len(SLUG) < 200


def test_text_off_the_sheet_is_not_hidden_by_the_crop_box() -> None:
    # Text drawn outside the MediaBox (a broken content stream's, or a layout tool's pasteboard) shows in no viewer
    # whatever the CropBox: it does not make the crop box lose the page.
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    c.setCropBox((108, 72, 504, 720))
    c.setFont("Helvetica", 11)
    for k, line in enumerate(RIGHT_PAGE * 3):
        c.drawString(120, 700 - 14 * k, line[:60])
        c.drawString(-900, 700 - 14 * k, line)  # far left of the sheet
    c.showPage()
    c.save()
    page = pdfium.PdfDocument(buf.getvalue())[0]
    assert hidden_text(page)[0] == 0 and repair_crop_box(page) is None


def test_a_spread_split_into_two_pages_keeps_each_half(tmp_path: Path) -> None:
    # Each page shows its half of one sheet: reading the sheet on both would repeat the spread's text.
    left, right = document_pages("pdf", str(write(tmp_path / "book.pdf", split_spread_pdf())), DIM)
    assert left["text_layer"].splitlines()[:3] == LEFT_PAGE and RIGHT_PAGE[0] not in left["text_layer"]
    assert right["text_layer"].splitlines()[:3] == RIGHT_PAGE and LEFT_PAGE[0] not in right["text_layer"]
    # Only the layout's own note on what lay outside the page ("848 characters outside the page left out").
    assert all("CropBox" not in row["render_note"] for row in (left, right))
    assert left["height"] == DIM and abs(left["width"] - DIM * 612 / 792) <= 1
