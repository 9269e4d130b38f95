"""A ruled table on a scanned page: ruling lines found in the image, OCR lines read into HTML cells."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.layout.scan_rules import find_rules
from ocr_pipeline.records import PageInput
from tests.support.builders import layout_pdfs, pdfgen


@pytest.fixture(scope="module")
def engine() -> CpuEngine:
    return CpuEngine(threads=1)


def _scan(pdf: bytes) -> PageInput:
    buf = io.BytesIO()
    pdfgen.render_image(pdf, dpi=110).save(buf, format="PNG")
    return PageInput("scan", 1, buf.getvalue())


def _rows(text: str) -> list[list[str]]:
    table = text[text.index("<table>") : text.index("</table>")]
    return [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row) for row in re.findall(r"<tr>(.*?)</tr>", table)]


@pytest.mark.parametrize("style", ["grid", "booktabs"])
def test_ruled_table_on_a_scan_becomes_html_cells(engine: CpuEngine, style: str) -> None:
    result = engine.ocr_page(_scan(layout_pdfs.table_pdf(style)))
    assert result.extra["source"] == "ocr" and result.is_table
    assert result.text.count("<table>") == 1
    assert _rows(result.text) == layout_pdfs.TABLE
    # The paragraphs around it stay text, in reading order.
    assert result.text.index("wizards") < result.text.index("<table>") < result.text.index("journey")


def test_scanned_prose_is_no_table(engine: CpuEngine) -> None:
    result = engine.ocr_page(_scan(pdfgen.text_pdf([pdfgen.SENTENCES])))
    assert not result.is_table and "<table>" not in result.text


def test_rules_are_long_thin_ink_runs_not_glyphs_or_filled_areas() -> None:
    page = np.full((400, 300), 255, np.uint8)
    page[50:52, 20:280] = 0  # a horizontal rule, 2 px thick
    page[100, 20:280] = 30  # a hairline
    page[40:200, 150] = 0  # a vertical rule
    page[300:312, 20:26] = 0  # a glyph-sized blot
    page[330:390, 100:200] = 0  # a filled box: too thick to be a rule
    rules = find_rules(page, text_height=12)
    horizontal = sorted((r.y0, r.y1, r.x0, r.x1) for r in rules if r.horizontal)
    vertical = [(r.x0, r.x1, r.y0, r.y1) for r in rules if not r.horizontal]
    assert horizontal == [(50, 52, 20, 280), (100, 101, 20, 280)]
    assert vertical == [(150, 151, 40, 200)]


def test_a_picture_of_many_long_runs_yields_no_rules() -> None:
    stripes = np.full((600, 600), 255, np.uint8)
    stripes[::2, :] = 0  # a halftone-like band pattern: thousands of long runs
    stripes[:, ::2] = 0
    assert find_rules(stripes, text_height=12) == []
