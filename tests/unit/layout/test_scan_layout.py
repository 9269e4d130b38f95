"""Layout of scanned pages' OCR lines (layout/scan_layout.py): pure geometry the tests build, no OCR."""

from __future__ import annotations

import numpy as np

from ocr_pipeline.layout.boxes import Box, Rule
from ocr_pipeline.layout.reading_order import order_lines
from ocr_pipeline.layout.scan_layout import (
    Leveller,
    fold_cut,
    halves,
    letterhead,
    level_boxes,
    margin_pieces,
    page_slope,
)

WIDTH, HEIGHT = 1000.0, 1300.0


def _quad(x0: float, y0: float, x1: float, height: float, slope: float) -> np.ndarray:
    """A line's quad (top-left, top-right, bottom-right, bottom-left) whose edges rise `slope` per pixel."""
    rise = slope * (x1 - x0)
    return np.array([[x0, y0], [x1, y0 + rise], [x1, y0 + rise + height], [x0, y0 + height]], dtype=float)


def _column(x0: float, x1: float, y0: float, texts: list[str], step: float = 30, height: float = 20) -> list[Box]:
    return [Box(x0, y0 + i * step, x1, y0 + i * step + height, t) for i, t in enumerate(texts)]


def test_slope_is_the_median_of_long_lines() -> None:
    quads = [_quad(100, 100 + 30 * i, 900, 20, 0.02) for i in range(10)] + [_quad(100, 50, 140, 20, -0.5)]
    assert abs(page_slope(quads) - 0.02) < 1e-9


def test_level_page_and_few_lines_give_no_slope() -> None:
    assert page_slope([_quad(100, 100 + 30 * i, 900, 20, 0.0005) for i in range(10)]) == 0.0
    assert page_slope([_quad(100, 100, 900, 20, 0.05), _quad(100, 200, 900, 20, 0.05)]) == 0.0


def test_skewed_lines_become_level_and_separate() -> None:
    # Lines 24 px apart rising 0.03 per px: over 800 px each box is 24 px taller than its line, so lines overlap.
    quads = [_quad(100, 100 + 24 * i, 900, 18, 0.03) for i in range(8)]
    texts = [f"line {i} of the skewed page" for i in range(8)]
    raw = [
        Box(q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max(), t) for q, t in zip(quads, texts, strict=True)
    ]
    assert all(a.y1 > b.y0 for a, b in zip(raw, raw[1:], strict=False))
    boxes, leveller = level_boxes(quads, texts, WIDTH)
    assert abs(leveller.slope - 0.03) < 1e-9
    assert all(abs(b.height - 0.6 * 18) < 1e-6 for b in boxes)  # level, less the detector's padding
    assert all(a.y1 < b.y0 for a, b in zip(boxes, boxes[1:], strict=False))
    assert [line[0].text for line in order_lines(boxes)] == texts


def test_levelling_keeps_columns_upright_and_trims_padding() -> None:
    leveller = Leveller(0.02, WIDTH)
    box = leveller.box(_quad(100, 500, 400, 20, 0.02), "a line")
    assert 100 < box.x0 < 110 and 390 < box.x1 < 400  # x only loses the detector's padding
    rule = leveller.rule(Rule(100, 600, 900, 602))
    assert (rule.x0, rule.x1) == (100, 900) and abs((rule.y1 - rule.y0) - 2) < 1e-9


def test_fold_of_a_spread_splits_it_into_pages() -> None:
    left = _column(50, 440, 80, ["2 THE JOURNAL"] + [f"left page line {i} with words" for i in range(20)])
    right = _column(560, 950, 80, ["THE JOURNAL 3"] + [f"right page line {i} with words" for i in range(20)])
    cut = fold_cut(left + right, WIDTH)
    assert cut is not None and 440 < cut < 560
    pages = halves(left + right, WIDTH)
    assert [len(p[0]) for p in pages] == [21, 21] and pages[0][2] == pages[1][1] == cut


def test_no_fold_across_a_title_or_beside_a_narrow_sidebar() -> None:
    left = _column(50, 440, 120, [f"left line {i} with words" for i in range(20)])
    right = _column(560, 950, 120, [f"right line {i} with words" for i in range(20)])
    title = Box(200, 60, 800, 90, "A TITLE ACROSS BOTH COLUMNS")
    assert fold_cut(left + right + [title], WIDTH) is None
    sidebar = _column(560, 950, 120, ["a note", "another"])
    assert fold_cut(left + sidebar, WIDTH) is None


def test_no_fold_between_a_drawings_labels() -> None:
    labels = [
        Box(x, y, x + 30, y + 20, str(n))
        for n, (x, y) in enumerate(
            [(100, 100), (250, 300), (120, 700), (400, 1000), (700, 150), (620, 500), (800, 900), (650, 1200)] * 3
        )
    ]
    assert fold_cut(labels, WIDTH) is None


def test_letterhead_corner_pieces_go() -> None:
    pieces = [Box(70, 50, 200, 70, "JOHN SMITH"), Box(790, 52, 905, 72, "TELEPHONE 478")]
    name = Box(135, 100, 840, 160, "THE SMITH COMPANY")
    body = _column(80, 900, 300, [f"handwritten line {i} of the letter" for i in range(15)], step=60, height=45)
    drop = margin_pieces(pieces + [name] + body, 0, WIDTH, HEIGHT)
    assert drop == {id(b) for b in pieces}


def test_a_plain_letters_date_stays() -> None:
    date = Box(650, 60, 900, 85, "May 22, 1914.")
    body = _column(80, 900, 140, [f"typed line {i} of the letter" for i in range(20)], height=25)
    assert margin_pieces([date] + body, 0, WIDTH, HEIGHT) == set()
    assert letterhead([date] + body, HEIGHT) == set()


def test_upright_margin_note_goes() -> None:
    body = _column(100, 800, 100, [f"printed line {i} of the column" for i in range(30)])
    note = Box(900, 500, 940, 700, "1881-2")
    assert margin_pieces(body + [note], 0, WIDTH, HEIGHT) == {id(note)}


def test_small_lines_above_a_large_name_go() -> None:
    founded = Box(380, 40, 500, 62, "FOUNDED 1814.")
    name = Box(180, 70, 720, 150, "Mount Something Academy")
    body = _column(100, 850, 250, [f"typed line {i} of the letter" for i in range(20)], height=22)
    assert letterhead([founded, name] + body, HEIGHT) == {id(founded)}


def test_small_letterhead_block_goes_and_body_stays() -> None:
    block = [
        Box(410, 60, 565, 85, "J. SMITH, JR."),
        Box(440, 88, 540, 104, "ATTORNEY AT LAW"),
        Box(405, 107, 570, 124, "SAVINGS BUILDING"),
        Box(450, 127, 520, 143, "INDIANA, PA."),
    ]
    body = _column(70, 900, 200, [f"typed line {i} of the letter" for i in range(20)], step=38, height=27)
    assert letterhead(block + body, HEIGHT) == {id(b) for b in block}
    # The same lines set at the body's size are the letter's own (an address block), and stay.
    typed = [Box(b.x0, b.y0 * 1.5, b.x1, b.y0 * 1.5 + 27, b.text) for b in block]
    assert letterhead(typed + body, HEIGHT) == set()
