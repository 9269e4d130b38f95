"""Footnotes at the foot of a column: set apart so a sentence that runs on into the next column is read whole.

A footnote (a copyright notice under a paper's first column, a numbered note under either column) is set smaller
than the body, below a white gap wider than the body's leading, and nothing but smaller text follows it down its
column. Read with the column, it lands between the last words of the column and their continuation at the top of
the next one; it is read after the body instead, where a reader turns to it. Geometry only: sizes are run heights.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from ocr_pipeline.layout.boxes import Box
from ocr_pipeline.layout.budget import LayoutBudget

# A footnote line is at most this share of the body's line height (body text in TeX: 10 pt, notes: 8-9 pt).
SMALL_SHARE = 0.93
# The line above a footnote is body text (not smaller than this share of the body height), and the white between
# them is at least this many body heights (the body's own leading leaves about a tenth) and at most that many (a
# caption under a figure stands further below the text above the figure).
BODY_SHARE = 0.97
MIN_GAP_HEIGHTS = 0.5
MAX_GAP_HEIGHTS = 3.0
# The note's lines follow each other down to the foot of the column with at most this much white between them.
MAX_LINE_GAP_HEIGHTS = 1.0
# A footnote block ends at most this many body heights above the lowest text of the page (a note beside a title
# at the head of the page is no footnote).
MAX_FOOT_RISE_HEIGHTS = 3.0
# A footnote block holds at most this many lines: a longer run of small print (a reference list set small, which
# continues in the next column) keeps its place.
MAX_LINES = 12


def footnote_ids(boxes: Sequence[Box], budget: LayoutBudget | None = None) -> set[int]:
    """ids of the boxes that are footnotes at the foot of their column."""
    runs = [b for b in boxes if b.text.strip()]
    if len(runs) < 2 * MAX_LINES:
        return set()  # a page of a few lines has no body to tell notes from
    budget = budget or LayoutBudget()
    body = statistics.median(b.height for b in runs)
    foot = max(b.y1 for b in runs) - MAX_FOOT_RISE_HEIGHTS * body
    notes: set[int] = set()
    for first in sorted(runs, key=lambda b: b.y0):
        if id(first) in notes or first.height > SMALL_SHARE * body:
            continue
        budget.charge(len(runs))
        column = [b for b in runs if b is not first and min(b.x1, first.x1) > max(b.x0, first.x0)]
        below = [b for b in column if b.y0 >= first.y0 - 0.2 * body]
        if any(b.height > SMALL_SHARE * body for b in below):
            continue  # body text follows further down: small print inside the column (a caption, a quote)
        above = [b for b in column if b.y1 <= first.y0 + 0.2 * body]
        if not above:
            continue
        nearest = max(above, key=lambda b: b.y1)
        gap = first.y0 - nearest.y1
        if nearest.height < BODY_SHARE * body or not MIN_GAP_HEIGHTS * body <= gap <= MAX_GAP_HEIGHTS * body:
            continue
        block = [first, *below]
        if max(b.y1 for b in block) < foot or _stacked_rows(block, body) > MAX_LINES:
            continue
        notes.update(id(b) for b in block)
    return notes


def _stacked_rows(boxes: Sequence[Box], h: float) -> int:
    """How many text lines the boxes stand on, one under the other (boxes whose tops are within half a line height
    share one); more than MAX_LINES when white wider than MAX_LINE_GAP_HEIGHTS parts two of them (figure labels)."""
    rows: list[list[float]] = []  # top and bottom of each line
    for b in sorted(boxes, key=lambda b: b.y0):
        if rows and b.y0 - rows[-1][0] <= h / 2:
            rows[-1][1] = max(rows[-1][1], b.y1)
            continue
        if rows and b.y0 - rows[-1][1] > MAX_LINE_GAP_HEIGHTS * h:
            return MAX_LINES + 1
        rows.append([b.y0, b.y1])
    return len(rows)
