"""Reading order of positioned text boxes: pure geometry, no OCR."""

from __future__ import annotations

from ocr_pipeline.pdf.reading_order import (
    Box,
    find_column_cut,
    join_line,
    looks_like_table,
    order_lines,
    order_text,
)


def _column(x0: float, x1: float, y0: float, texts: list[str], step: float = 20) -> list[Box]:
    return [Box(x0, y0 + i * step, x1, y0 + i * step + 12, t) for i, t in enumerate(texts)]


LEFT = [f"left column line number {i}" for i in range(5)]
RIGHT = [f"right column line number {i}" for i in range(5)]


def test_two_columns_are_read_one_after_the_other() -> None:
    boxes = _column(300, 500, 100, RIGHT) + _column(50, 250, 100, LEFT)  # same baselines
    assert order_text(boxes).splitlines() == LEFT + RIGHT


def test_full_width_header_and_footer_frame_the_columns() -> None:
    header = Box(50, 40, 500, 60, "A title that spans the whole width of the page")
    footer = Box(50, 300, 500, 312, "A closing paragraph that spans the whole width again")
    boxes = [footer, *_column(300, 500, 100, RIGHT), header, *_column(50, 250, 100, LEFT)]
    assert order_text(boxes).splitlines() == [header.text, *LEFT, *RIGHT, footer.text]


def test_single_column_lines_keep_top_to_bottom_order_and_join_words() -> None:
    boxes = [Box(200, 100, 260, 112, "world"), Box(50, 100, 190, 112, "hello"), Box(50, 80, 260, 92, "first")]
    assert order_lines(boxes) == [[boxes[2]], [boxes[1], boxes[0]]]
    assert order_text(boxes) == "first\nhello world"


def test_table_rows_are_read_across_not_down() -> None:
    rows = [("Name", "Age", "City"), ("Ann", "31", "Oslo"), ("Bob", "42", "Rome")]
    boxes = [
        Box(50 + 150 * c, 100 + 20 * r, 100 + 150 * c, 112 + 20 * r, cell)
        for r, row in enumerate(rows)
        for c, cell in enumerate(row)
    ]
    lines = order_lines(boxes)
    assert [" ".join(b.text for b in line) for line in lines] == ["Name Age City", "Ann 31 Oslo", "Bob 42 Rome"]
    assert looks_like_table(lines)


def test_equation_number_is_not_a_column() -> None:
    boxes = [Box(150, 100, 300, 112, "E = m c squared"), Box(480, 100, 500, 112, "(1)")]
    assert find_column_cut(boxes) is None
    assert order_text(boxes) == "E = m c squared (1)"


def test_slightly_overlapping_ocr_boxes_stay_separate_lines() -> None:
    boxes = [Box(50, 100, 400, 115, "upper line of text"), Box(50, 113, 400, 128, "lower line of text")]
    assert order_text(boxes) == "upper line of text\nlower line of text"


def test_join_line_spaces_only_at_real_gaps() -> None:
    line = [Box(0, 0, 10, 10, "x"), Box(10.5, 0, 14, 6, "2"), Box(20, 0, 40, 10, "+ y")]
    assert join_line(line, space_gap=0.12) == "x2 + y"
    assert join_line(line) == "x 2 + y"


def test_empty_and_blank_boxes() -> None:
    assert order_lines([]) == []
    assert order_text([Box(0, 0, 10, 10, "  ")]) == ""
