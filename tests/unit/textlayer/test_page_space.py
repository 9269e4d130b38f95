"""Text-layer geometry on the page as shown: CropBox origins and /Rotate (real scans and cut sheets use both)."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest

from ocr_pipeline.textlayer.page_space import PageSpace
from ocr_pipeline.textlayer.reader import extract_page_text, page_layout
from tests.support.builders.page_space_pdfs import BODY, offset_crop_pdf, rotated_landscape_pdf, sideways_pdf


def _page(pdf: bytes) -> pdfium.PdfPage:
    return pdfium.PdfDocument(pdf)[0]


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_the_visible_box_maps_onto_the_shown_page(rotation: int) -> None:
    space = PageSpace(0, 100, 600, 900, rotation)
    corners = [space.point(x, y) for x in (0, 600) for y in (100, 900)]
    xs, ys = sorted({round(p[0]) for p in corners}), sorted({round(p[1]) for p in corners})
    assert (xs, ys) == ([0, round(space.width)], [0, round(space.height)])
    assert (space.width, space.height) == ((800, 600) if rotation in (90, 270) else (600, 800))


def test_an_offset_crop_box_keeps_runs_on_the_page() -> None:
    layout = page_layout(_page(offset_crop_pdf()))
    assert (layout.width, layout.height) == (612, 792)
    for run in layout.runs:
        assert 0 <= run.x0 < run.x1 <= layout.width and 0 <= run.y0 < run.y1 <= layout.height, run
    head = next(r for r in layout.runs if r.text.startswith("JOURNAL"))
    assert head.y1 < 40  # 30 pt under the visible top edge, not 200 pt above the page


def test_furniture_at_the_edges_of_an_offset_crop_box_is_dropped() -> None:
    text = extract_page_text(_page(offset_crop_pdf()))
    assert text.splitlines() == BODY


def test_a_rotated_landscape_page_reads_across_in_line_order() -> None:
    page = _page(rotated_landscape_pdf())
    layout = page_layout(page)
    assert (layout.width, layout.height) == pytest.approx(page.get_size())
    assert all(not r.text.startswith("\u2195") for r in layout.runs)  # read across, not as upright text
    assert extract_page_text(page).splitlines() == BODY


@pytest.mark.parametrize(
    ("rotate_page", "turn_text"),
    [(90, 0), (270, 0), (0, 90), (0, 270), (180, 0), (0, 180)],
)
def test_text_set_sideways_on_the_shown_page_is_read_across(rotate_page: int, turn_text: int) -> None:
    # A portrait page shown turned, or a table printed across a portrait sheet: a reader turns the page.
    page = _page(sideways_pdf(rotate_page, turn_text))
    assert extract_page_text(page).splitlines() == BODY
