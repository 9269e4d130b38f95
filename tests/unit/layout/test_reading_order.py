"""Reading order of positioned text boxes: pure geometry, no OCR."""

from __future__ import annotations

import pypdfium2 as pdfium

from ocr_pipeline.layout.reading_order import (
    Box,
    find_column_cut,
    join_line,
    order_lines,
    order_text,
)
from ocr_pipeline.textlayer.reader import extract_page_text
from tests.support.builders.columns_pdfs import CAPTION_START, TITLE, column_lines, crossed_gutter_pdf


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


def _texts(lines: list[list[Box]]) -> list[str]:
    return [" ".join(b.text for b in line) for line in lines]


def test_caption_across_the_gutter_cuts_the_columns_into_bands() -> None:
    # Built PDF: a title and a full-width caption cross the gutter, and no white band runs across the page.
    text = extract_page_text(pdfium.PdfDocument(crossed_gutter_pdf())[0]).splitlines()
    caption = next(k for k, line in enumerate(text) if line.startswith(CAPTION_START))
    expected_upper = column_lines("upper left", 12) + column_lines("upper right", 12)
    expected_lower = column_lines("lower left", 12) + column_lines("lower right", 12)
    assert text[0] == TITLE
    assert text[1:caption] == expected_upper
    assert text[caption + 2 :] == expected_lower


def test_two_page_spread_of_ocr_boxes_is_read_page_by_page() -> None:
    # A scanned spread: two pages side by side set close at the fold, slightly skewed, under one centred running
    # title that crosses the fold. The boxes are as the CPU engine hands them over: the detector's padding (8 px at
    # each line end here, ScanParams.end_pad_heights) drawn in where they were made (scan_layout.level_boxes).
    left = [f"left page line {i:02d} of the scanned book" for i in range(20)]
    right = [f"right page line {i:02d} of the scanned book" for i in range(20)]
    boxes = [Box(300, 20, 660, 48, "THE TITLE OF THE BOOK ACROSS THE SPREAD")]
    for i, (a, b) in enumerate(zip(left, right, strict=True)):
        skew = i * 0.15  # the fold drifts a few pixels down the page: the gap between the pages narrows to 17 px
        boxes.append(Box(48 + skew, 80 + 30 * i, 470 + skew, 108 + 30 * i, a))
        boxes.append(Box(492 - skew, 82 + 30 * i, 912, 110 + 30 * i, b))
    assert _texts(order_lines(boxes)) == [boxes[0].text, *left, *right]


def test_line_numbers_in_a_patent_gutter_are_read_apart() -> None:
    # Patents print 5, 10, 15 ... between the columns: the white either side is narrower than a column gap.
    left = [f"left column claim text line {i:02d}" for i in range(30)]
    right = [f"right column claim text line {i:02d}" for i in range(30)]
    boxes = []
    for i, (a, b) in enumerate(zip(left, right, strict=True)):
        boxes += [Box(78, 80 + 10.5 * i, 295, 93 + 10.5 * i, a), Box(312, 80 + 10.5 * i, 528, 93 + 10.5 * i, b)]
        if (i + 1) % 5 == 0:
            boxes.append(Box(299.5, 82 + 10.5 * i, 306.5, 90 + 10.5 * i, str(i + 1)))
    texts = _texts(order_lines(boxes))
    assert [t for t in texts if not t.isdigit()] == left + right
    assert [t for t in texts if t.isdigit()] == [str(n) for n in range(5, 31, 5)]


def test_margin_line_numbers_do_not_split_sentences() -> None:
    lines = [f"a proof line of the journal article {i:02d}" for i in range(12)]
    boxes = [Box(74, 10 + 10.5 * i, 325, 18 + 10.5 * i, t) for i, t in enumerate(lines)]
    boxes += [Box(47, 11 + 10.5 * i, 55, 17 + 10.5 * i, str(387 + i)) for i in range(12)]
    assert _texts(order_lines(boxes)) == lines + [str(387 + i) for i in range(12)]


def test_an_upright_margin_stamp_does_not_join_the_lines_beside_it() -> None:
    lines = [f"body text line number {i:02d} of the page" for i in range(10)]
    boxes = [Box(60, 100 + 20 * i, 500, 116 + 20 * i, t) for i, t in enumerate(lines)]
    stamp = Box(540, 90, 556, 320, "Downloaded from a repository on a date")
    assert _texts(order_lines([*boxes, stamp])) == [*lines, stamp.text]


def test_two_numbered_columns_of_amounts_stay_rows() -> None:
    # A statement: labels on the left, amounts on the right, under a centred heading that crosses the gap.
    labels = [f"Account item number {i} and its dots" for i in range(12)]
    boxes = [Box(150, 20, 500, 40, "STATEMENT OF THE BANK")]
    for i, label in enumerate(labels):
        boxes += [Box(40, 60 + 22 * i, 330, 80 + 22 * i, label), Box(520, 60 + 22 * i, 640, 80 + 22 * i, f"{i},250.00")]
    assert _texts(order_lines(boxes))[1:] == [f"{label} {i},250.00" for i, label in enumerate(labels)]


def test_heading_beside_the_right_columns_first_line_joins_the_columns() -> None:
    # The left column's last paragraph ends under a heading that stands on the row of the right column's first line:
    # that row alone is too narrow on its left to show the gutter, so it was read across as a line of its own.
    left = [f"left column line {i} of the body text" for i in range(6)]
    right = [f"right column line {i} of the body text" for i in range(7)]
    above = [f"a paragraph across the whole page width, its line {i:02d}" for i in range(10)]
    boxes = [Box(42, 400 + 12 * i, 550, 413 + 12 * i, t) for i, t in enumerate(above)]
    boxes.append(Box(42, 539, 177, 552, "Gypsum Amendment Effects"))
    boxes += [Box(42, 563 + 12 * i, 279, 576 + 12 * i, t) for i, t in enumerate(left)]
    boxes += [Box(315, 539 + 12 * i, 550, 552 + 12 * i, t) for i, t in enumerate(right)]
    assert _texts(order_lines(boxes)) == [*above, "Gypsum Amendment Effects", *left, *right]


def test_diagram_labels_beside_the_text_stay_out_of_its_lines() -> None:
    # A diagram set beside a column: its first labels stand on the rows of the column's lines; one such row alone is
    # too narrow on its right to count as a column, the labels were glued into the sentences beside them. (Its note,
    # a line of a sentence's length, tells the diagram from a table's short cells.)
    above = [f"an introduction set across the whole page, line {i:02d}" for i in range(8)]
    text = [f"the text of the column, line number {i:02d}" for i in range(12)]
    boxes = [Box(28, 200 + 11.4 * i, 476, 211 + 11.4 * i, t) for i, t in enumerate(above)]
    boxes += [Box(28, 300 + 11.4 * i, 263, 311 + 11.4 * i, t) for i, t in enumerate(text)]
    labels = [
        Box(370, 338.5, 408, 348.2, "PRESIDENT"),
        Box(337, 348, 441, 357.8, "OF THE COUNCIL"),
        Box(390, 375, 450, 384.8, "CARRIES OUT"),
        Box(290, 398, 350, 407.8, "PROPOSES"),
        Box(400, 398, 476, 407.8, "ADOPTS THE DECISIONS"),
        Box(290, 420, 476, 428, "(*) the number of members of the standing committee may vary"),
    ]
    texts = _texts(order_lines(boxes + labels))
    assert texts[: len(above) + len(text)] == above + text
    assert sorted(" ".join(texts[len(above) + len(text) :]).split()) == sorted(" ".join(b.text for b in labels).split())


def test_pull_quote_across_the_gutter_is_read_after_the_columns_it_interrupts() -> None:
    # A pull quote in a larger size straddles the gutter; the lines of both columns beside it are shortened. Its lines
    # are neither a title (text stands beside them) nor one column's: read with the rows, they interleaved the columns.
    left, right, boxes = [], [], []
    for i in range(24):
        y = 250 + 11.1 * i
        short = 380 <= y <= 440
        left.append(f"left column sentence {i:02d} goes on")
        right.append(f"right column sentence {i:02d} goes on")
        boxes.append(Box(25.5, y, 167 if short else 254.5, y + 10.9, left[-1]))
        boxes.append(Box(354 if short else 266.4, y + 3, 495.4, y + 13.9, right[-1]))
    quote = ["the county will not leave", "its future to the great", "metropolis"]
    boxes += [
        Box(194 + 10 * (i == 2), 394 + 15.5 * i, 327 - 10 * (i == 2), 409.4 + 15.5 * i, t) for i, t in enumerate(quote)
    ]
    assert _texts(order_lines(boxes)) == left + right + quote


def test_caption_between_two_narrow_columns_is_read_after_them() -> None:
    # A figure's caption in a smaller size stands between two narrow columns that continue above and below the figure:
    # its lines span the gutter, but text stands on both sides of them, so they cut nothing into bands.
    left, right, boxes = [], [], []
    for i in range(30):
        y = 67 + 14 * i
        narrow = 95 <= y <= 490
        left.append(f"left column words {i:02d}")
        right.append(f"right column words {i:02d}")
        boxes.append(Box(48, y, 146 if narrow else 287, y + 13.5, left[-1]))
        boxes.append(Box(458 if narrow else 306, y, 550, y + 13.5, right[-1]))
    caption = [f"caption of the figure, its line number {i} of eight" for i in range(8)]
    boxes += [Box(155, 381.6 + 10.8 * i, 293 if i == 7 else 444, 392 + 10.8 * i, t) for i, t in enumerate(caption)]
    assert _texts(order_lines(boxes)) == left + right + caption


def test_middle_column_of_a_three_column_section_above_two_columns_is_no_inset() -> None:
    # Three columns, a separator, then two: the upper middle column stands over the lower gutter with text on both
    # sides, but no column runs on above it: it is read in its place, not set aside as an inset.
    upper = [[f"upper column {c} line {i:02d} text" for i in range(3)] for c in range(3)]
    lower = [[f"lower column {c} sentence {i:02d} of text" for i in range(20)] for c in range(2)]
    boxes = []
    for c, lines in enumerate(upper):
        boxes += [Box(40 + 180 * c, 50 + 12 * i, 200 + 180 * c, 61 + 12 * i, t) for i, t in enumerate(lines)]
    for c, lines in enumerate(lower):
        boxes += [Box(40 + 270 * c, 86 + 12 * i, 290 + 270 * c, 97 + 12 * i, t) for i, t in enumerate(lines)]
    assert _texts(order_lines(boxes)) == [*upper[0], *upper[1], *upper[2], *lower[0], *lower[1]]


def test_middle_caption_of_three_under_figures_is_no_inset() -> None:
    # Two columns of text, figures without text, then three captions side by side, the middle one the shortest: the
    # middle caption stands over the gutter with captions both sides, but no column runs on right above it.
    left = [f"left column sentence {i:02d} goes on" for i in range(20)]
    right = [f"right column sentence {i:02d} goes on" for i in range(20)]
    boxes = [Box(40, 50 + 12 * i, 290, 61 + 12 * i, t) for i, t in enumerate(left)]
    boxes += [Box(310, 50 + 12 * i, 560, 61 + 12 * i, t) for i, t in enumerate(right)]
    captions = [[f"caption {c} of the figure, line {i}" for i in range(n)] for c, n in enumerate((8, 4, 6))]
    for c, lines in enumerate(captions):
        boxes += [Box(40 + 180 * c, 460 + 10 * i, 200 + 180 * c, 469 + 10 * i, t) for i, t in enumerate(lines)]
    assert _texts(order_lines(boxes)) == [*left, *right, *captions[0], *captions[1], *captions[2]]
