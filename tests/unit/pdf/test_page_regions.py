"""The layout model in the text layer's path: its regions land on the runs they cover, in the page's own frame."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from ocr_pipeline.pdf.page_regions import furniture_regions
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.regions import detector
from ocr_pipeline.textlayer.reader import page_layout
from ocr_pipeline.textlayer.reading_params import READING_PARAMS, ReadingParams
from tests.support.builders import layout_pdfs, page_space_pdfs, pdfgen
from tests.support.shared_data import HISTORY

# A court's journal page: a running head in capitals, set like a heading and close to the text (olmOCR-Bench's
# headers_footers, tuning part): the rules keep it, the model calls it a header.
SECTION_HEAD = HISTORY / "headers_footers" / "pdfs" / "e4ace7edb587a91a895b3ed38e13e1a6c704dd26_page_1.pdf"


def _text(path: Path, params: ReadingParams = READING_PARAMS) -> str:
    return next(iter(document_pages("pdf", str(path), 1288, params=params)))["text_layer"]


def test_regions_sit_on_the_runs_of_the_lines_they_name(tmp_path: Path) -> None:
    path = pdfgen.write(tmp_path / "doc.pdf", layout_pdfs.furniture_pdf(pages=1))
    doc = pdfium.PdfDocument(str(path))
    try:
        page = doc[0]
        layout = page_layout(page)
        regions = furniture_regions(page, layout.shown_frame)
    finally:
        doc.close()
    # Each region holds the centre of a run: the running head's at the top, the page number's at the foot.
    for region in regions:
        held = [
            r for r in layout.runs if region.x0 <= (r.x0 + r.x1) / 2 <= region.x1 and region.y0 <= r.yc <= region.y1
        ]
        assert held, (region, layout.runs[:3])
    assert {r.text for r in regions} == {"header", "footer"}


@pytest.mark.shared_data
def test_a_running_head_the_rules_keep_is_dropped_with_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    with_model = _text(SECTION_HEAD)
    asked: list[object] = []
    # Switched off, the model is not even asked (its run is most of a born-digital page's time).
    monkeypatch.setattr(detector, "shipped_detector", lambda: asked.append(1))
    rules_only = _text(SECTION_HEAD, replace(READING_PARAMS, layout_model=False))
    assert asked == []
    assert "TÓXICOS E GUERRAS" in rules_only and "TÓXICOS E GUERRAS" not in with_model
    # Nothing else goes: the body lines are the same, in the same order.
    assert [ln for ln in rules_only.splitlines() if "TÓXICOS" not in ln] == with_model.splitlines()


def test_a_page_read_turned_gets_no_regions(tmp_path: Path) -> None:
    path = pdfgen.write(tmp_path / "turned.pdf", page_space_pdfs.sideways_pdf(0, 90))
    doc = pdfium.PdfDocument(str(path))
    try:
        page = doc[0]
        layout = page_layout(page)
        assert not layout.shown_frame
        assert furniture_regions(page, layout.shown_frame) == []
    finally:
        doc.close()
