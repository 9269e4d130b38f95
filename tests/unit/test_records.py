"""The records every stage exchanges: a page row becomes an engine's input in one place."""

from __future__ import annotations

from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.records import PageInput
from tests.support.builders import pdfgen


def test_a_page_row_becomes_the_engines_input(tmp_path) -> None:
    pdf = pdfgen.write(tmp_path / "a.pdf", pdfgen.text_pdf([pdfgen.SENTENCES * 3]))
    row = next(document_pages("pdf", str(pdf), 400))
    page = PageInput.from_row({**row, "sha256": "s" * 64})
    assert (page.source_hash, page.page_num, page.png) == ("s" * 64, 1, row["png"])
    assert (page.width, page.height) == (row["width"], row["height"]) and max(page.width, page.height) == 400
    assert "quick brown fox" in page.text_layer and page.text_layer_trusted is True
    assert page.image_covered is False
    # A benchmark's or the canary's rows carry no hash: the caller names the page instead.
    assert PageInput.from_row(row, "a").source_hash == "a"


def test_a_row_written_before_the_newer_columns_still_reads() -> None:
    # Rows of older pages Parquets: no image_covered column, nulls where a page did not render.
    old = {"sha256": "h", "page_num": 2, "png": None, "width": None, "height": None}
    page = PageInput.from_row({**old, "text_layer": None, "text_layer_trusted": None})
    facts = (page.width, page.height, page.text_layer, page.text_layer_trusted, page.image_covered)
    assert facts == (0, 0, "", False, False)
