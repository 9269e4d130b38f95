"""Every size the input controls is bounded in the text layer's layout: boxes off the page, microscopic line heights,
pages of hundreds of thousands of glyphs and loops that would go quadratic degrade to the simple reading order,
noted on the page, never to a crash, a rejection or minutes of work."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.layout.boxes import Box, Rule
from ocr_pipeline.layout.budget import BudgetSpent, LayoutBudget, join_notes
from ocr_pipeline.layout.columns import RegionTooLarge, crossing, gutter_candidates, inset_block, line_number_stacks
from ocr_pipeline.layout.drop_caps import join_drop_caps
from ocr_pipeline.layout.footnotes import footnote_ids
from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS
from ocr_pipeline.layout.reading_order import find_column_cut, order_lines, order_text
from ocr_pipeline.layout.scan_layout import margin_pieces
from ocr_pipeline.layout.simple_order import simple_lines
from ocr_pipeline.layout.table_html import find_tables
from ocr_pipeline.pdf import page_rows
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.records import PageInput
from ocr_pipeline.textlayer import glyph_bounds
from ocr_pipeline.textlayer.glyphs import Glyph
from ocr_pipeline.textlayer.math.latex import latex_formulas
from ocr_pipeline.textlayer.math.math_params import MATH_PARAMS
from ocr_pipeline.textlayer.reader import layout_text, page_layout
from ocr_pipeline.textlayer.reading_params import READING_PARAMS, ReadingParams
from ocr_pipeline.textlayer.textlayer_params import TEXT_LAYER_PARAMS
from tests.support.builders import pdfgen
from tests.support.builders.bounds_pdfs import lines_pdf, placed_text_pdf, prose, scattered_pdf


def _layout(tmp_path: Path, data: bytes, params: ReadingParams = READING_PARAMS) -> tuple[str, list[str]]:
    """The page's marked text and every note its layout made."""
    path = pdfgen.write(tmp_path / "page.pdf", data)
    doc = pdfium.PdfDocument(str(path))
    try:
        layout = page_layout(doc[0], params=params)
        budget = LayoutBudget()
        return layout_text(layout, marked=True, budget=budget, params=params), layout.notes + budget.notes
    finally:
        doc.close()


def _two_columns(rows: int = 30, h: float = 10.0) -> list[Box]:
    """Two columns of prose lines, `h` high, 40 points apart."""
    left = [Box(50, 100 + 1.2 * h * k, 280, 100 + 1.2 * h * k + h, f"left {k} {prose(40, k)}") for k in range(rows)]
    right = [Box(320, 100 + 1.2 * h * k, 550, 100 + 1.2 * h * k + h, f"right {k} {prose(40, k)}") for k in range(rows)]
    return left + right


def test_a_glyph_a_million_points_off_the_page_is_left_out(tmp_path: Path) -> None:
    far = [(1_000_000.0, 700.0, 10.0, "FARAWAY"), (72.0, -1_000_000.0, 10.0, "BELOW")]
    # One string starts on the page and runs off its right edge: its glyphs past the edge are gone, the rest cut.
    strings = [(72.0, 700.0, 10.0, prose(60)), (560.0, 600.0, 10.0, "edge" * 10), *far]
    text, notes = _layout(tmp_path, placed_text_pdf(strings))
    assert "FARAWAY" not in text and "BELOW" not in text and text.startswith(prose(60)[:20])
    assert any("outside the page left out" in n for n in notes)
    assert any("cut at the page's edge" in n for n in notes)
    path = pdfgen.write(tmp_path / "far.pdf", placed_text_pdf(strings))
    doc = pdfium.PdfDocument(str(path))
    layout = page_layout(doc[0])
    doc.close()
    assert all(0 <= b.x0 <= b.x1 <= layout.width and 0 <= b.y0 <= b.y1 <= layout.height for b in layout.runs)


def test_boxes_and_rules_off_the_page_are_cut_at_its_edges() -> None:
    boxes = [Box(-5, 10, 20, 20, "a"), Box(1e6, 10, 1e6 + 5, 20, "b"), Box(float("nan"), 0, 1, 1, "c")]
    assert glyph_bounds.on_page(boxes, 100, 100) == [Box(0, 10, 20, 20, "a")]
    assert glyph_bounds.on_page([Rule(-50, 5, 150, 5), Rule(0, 200, 10, 200)], 100, 100) == [Rule(0, 5, 100, 5)]
    budget = LayoutBudget()
    glyphs = [Glyph("x", (-1e6, 0, -1e6 + 5, 10)), Glyph(" ", None), Glyph("y", (95, 5, 105, 15))]
    kept = glyph_bounds.glyphs_on_page(glyphs, 100, 100, budget)
    assert [(g.text, g.box) for g in kept] == [(" ", None), ("y", (95, 5, 100, 15))]
    assert budget.notes == ["1 characters outside the page left out", "1 characters cut at the page's edge"]


def test_a_region_a_million_points_wide_reads_in_simple_order() -> None:
    # A box no page holds (an OCR box or a run nobody clipped) makes a gutter search of ~10^6 bins: refused.
    boxes = [*_two_columns(), Box(0, 50, 1_000_000, 60, "a title across the whole sheet")]
    with pytest.raises(RegionTooLarge):
        gutter_candidates(boxes, 10.0, 3.0)
    budget = LayoutBudget()
    lines = order_lines(boxes, budget)
    assert sorted(id(b) for line in lines for b in line) == sorted(id(b) for b in boxes)
    assert any("gutter search" in n for n in budget.notes)


def test_a_line_height_of_a_hundredth_of_a_point_reads_in_simple_order() -> None:
    # Two columns crossed by a title (so the crossed-gutter search runs), set in type 0.01 pt high.
    tiny = [Box(b.x0, b.y0 / 1000, b.x1, b.y0 / 1000 + 0.01, b.text) for b in _two_columns()]
    tiny.append(Box(50, 0.09, 550, 0.1, "a title across both columns of microscopic type"))
    budget = LayoutBudget()
    lines = order_lines(tiny, budget)
    assert len([b for line in lines for b in line]) == len(tiny)
    assert any("gutter search" in n and "bound 16384" in n for n in budget.notes)
    # The same page at a readable size is read column by column, bound untouched.
    readable = LayoutBudget()
    text = order_text(_two_columns(), budget=readable)
    assert text.index("left 29 ") < text.index("right 0 ") and readable.notes == []


def test_two_hundred_thousand_glyphs_on_one_page(tmp_path: Path) -> None:
    text, notes = _layout(tmp_path, lines_pdf(200, 1000, 1.5, 2.0))
    assert any(n.startswith("200") and "read without glyph repairs" in n for n in notes)
    words = text.split()
    assert len(words) > 30_000 and " ".join(words[:30]) == " ".join(prose(1000, 0).split()[:30])


def test_characters_past_the_read_bound_are_left_out(tmp_path: Path) -> None:
    bounded = replace(TEXT_LAYER_PARAMS, max_repaired_glyphs=100, max_page_chars=500)
    text, notes = _layout(tmp_path, lines_pdf(10, 100, 10.0), replace(READING_PARAMS, text_layer=bounded))
    assert "characters past the first 500 left out" in notes and len(text.split()) < 120
    assert text.startswith(prose(100, 0)[:50])


def test_a_page_of_more_runs_than_the_bound_reads_in_simple_order(tmp_path: Path) -> None:
    bound = LAYOUT_PARAMS.max_runs
    text, notes = _layout(tmp_path, scattered_pdf(bound + 500))
    assert any(f"(bound {bound})" in n and "simple reading order" in n for n in notes)
    assert len(text.split()) >= bound // 2  # every letter is still there, a few to a line


def test_a_spent_budget_reads_the_page_in_simple_order() -> None:
    boxes = _two_columns()
    spent = LayoutBudget(work=100)
    lines = order_lines(boxes, spent)
    assert lines == simple_lines(boxes)  # line by line across both columns
    assert spent.notes == ["layout budget spent (work): read in simple reading order"]
    ticks = iter([0.0, 0.0, 100.0])
    late = LayoutBudget(seconds=4.0, clock=lambda: next(ticks, 100.0))
    assert order_lines(boxes, late) == simple_lines(boxes)
    assert late.notes == ["layout budget spent (4 s): read in simple reading order"]


@pytest.mark.parametrize(
    "call",
    [
        lambda b: find_tables([Box(10 * k, 0, 10 * k + 8, 10, "12") for k in range(40)], (), b),
        lambda b: footnote_ids([Box(0, 12 * k, 200, 12 * k + 10 - 3 * (k > 40), "note") for k in range(60)], b),
        lambda b: join_drop_caps([Box(0, 0, 30, 40, "W"), Box(32, 0, 200, 10, "hen"), Box(32, 12, 200, 22, "x")], b),
        lambda b: latex_formulas(
            [Glyph(c, (5.0 * k, 0, 5.0 * k + 5, 10), 10.0, baseline=2, font="CMMI10") for k, c in enumerate("x+y=z")],
            [],
            100.0,
            b,
        ),
        lambda b: line_number_stacks([Box(0, 12 * k, 8, 12 * k + 10, str(5 * k + 5)) for k in range(8)], 10, b),
        lambda b: find_column_cut(_two_columns(), 10, b),
        lambda b: crossing([*_two_columns(), Box(50, 50, 550, 60, "a title over both")], 300, 10, b),
        lambda b: inset_block([Box(200, 0, 400, 10, "a pull quote")], _two_columns(), b),
        lambda b: margin_pieces([Box(10, 5, 60, 11, "tel 1234"), *_two_columns()], 0, 600, 800, b),
    ],
    ids=["tables", "footnotes", "drop_caps", "formulas", "line_numbers", "column_cut", "crossing", "inset", "margins"],
)
def test_each_layout_stage_charges_the_budget(call: object) -> None:
    with pytest.raises(BudgetSpent):
        call(LayoutBudget(work=0))  # type: ignore[operator]


def test_a_formula_past_its_glyph_bound_stays_text() -> None:
    bounded = replace(MATH_PARAMS, inline="all", max_formula_glyphs=20)
    glyphs = [
        Glyph(c, (5.0 * k, 0, 5.0 * k + 5, 10), 10.0, baseline=2, font="CMMI10") for k, c in enumerate("x+y" * 10)
    ]
    budget = LayoutBudget()
    out = latex_formulas(glyphs, [], 100.0, budget, bounded)
    assert "".join(g.text for g in out) == "x+y" * 10
    assert budget.notes == ["a formula of 30 glyphs (bound 20) kept as text"]


def test_bounds_that_fire_are_noted_on_the_page_row(tmp_path: Path) -> None:
    strings = [(72.0, 700.0 - 14 * k, 10.0, prose(80, k)) for k in range(20)] + [(5e6, 5e6, 10.0, "LOST")]
    path = pdfgen.write(tmp_path / "doc.pdf", placed_text_pdf(strings))
    [row] = list(document_pages("pdf", str(path), 300))
    assert row["render_error"] is None and "LOST" not in row["text_layer"] and row["text_layer_trusted"]
    assert row["render_note"] == "4 characters outside the page left out"
    assert join_notes(None, ["a", "b"], ["a"], "") == "a; b" and join_notes(None, []) is None


def test_layouts_kept_between_the_passes_are_bounded_in_boxes(tmp_path: Path) -> None:
    pages = [[pdfgen.SENTENCES[k % 8]] for k in range(6)]
    path = pdfgen.write(tmp_path / "doc.pdf", pdfgen.text_pdf(pages))
    every_layout_kept = [r["text_layer"] for r in document_pages("pdf", str(path), 200)]
    doc = pdfium.PdfDocument(str(path))
    try:
        cache: dict[int, page_rows.PageLayout] = {}
        page_rows._repeated_lines(doc, cache, {})
        assert len(cache) == 6
        boxes = len(cache[0].runs) + len(cache[0].rules)
        cache.clear()
        page_rows._repeated_lines(doc, cache, {}, max_cached=2 * boxes)
        assert sum(len(c.runs) + len(c.rules) for c in cache.values()) <= 2 * boxes < 6 * boxes
    finally:
        doc.close()
    # Pages not kept are read again in the second pass, to the same text.
    assert [r["text_layer"] for r in document_pages("pdf", str(path), 200)] == every_layout_kept


def test_the_ocr_engines_layout_degrades_the_same_way() -> None:
    # A scan's OCR boxes go through the same bounded layout: past a bound, the simple order, noted in `extra`.
    scan = pdfgen.scan_pdf(pdfgen.two_column_pdf(pdfgen.SENTENCES[:4], pdfgen.SENTENCES[4:]), dpi=100)
    doc = pdfium.PdfDocument(scan)
    png = io.BytesIO()
    doc[0].render(scale=900 / max(doc[0].get_size())).to_pil().save(png, format="PNG")
    doc.close()
    engine = CpuEngine(detect_rotation=False, layout=replace(LAYOUT_PARAMS, max_runs=3))
    result = engine.ocr_page(PageInput("h", 1, png.getvalue()))
    assert result.error is None and result.extra["source"] == "ocr"
    assert "(bound 3): read in simple reading order" in result.extra["layout_note"]
    assert "quick brown fox" in " ".join(result.text.split())
