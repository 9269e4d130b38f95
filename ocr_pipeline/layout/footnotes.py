"""Footnotes at the foot of a column: set apart so a sentence that runs on into the next column is read whole.

A footnote (a copyright notice under a paper's first column, a numbered note under either column) is set smaller
than the body, below a white gap wider than the body's leading, and nothing but smaller text follows it down its
column. Read with the column, it lands between the last words of the column and their continuation at the top of
the next one; it is read after the body instead, where a reader turns to it. Geometry only: sizes are run heights.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from ocr_pipeline.layout.boxes import Box, bottom_of
from ocr_pipeline.layout.budget import LayoutBudget
from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS, LayoutParams


def footnote_ids(
    boxes: Sequence[Box], budget: LayoutBudget | None = None, params: LayoutParams = LAYOUT_PARAMS
) -> set[int]:
    """ids of the boxes that are footnotes at the foot of their column."""
    runs = [b for b in boxes if b.text.strip()]
    if len(runs) < 2 * params.footnotes.max_lines:
        return set()  # a page of a few lines has no body to tell notes from
    budget = budget or LayoutBudget()
    body = statistics.median(b.height for b in runs)
    foot = bottom_of(runs) - params.footnotes.max_foot_rise_heights * body
    notes: set[int] = set()
    for first in sorted(runs, key=lambda b: b.y0):
        if id(first) in notes or first.height > params.footnotes.small_share * body:
            continue
        budget.charge(len(runs))
        column = [b for b in runs if b is not first and min(b.x1, first.x1) > max(b.x0, first.x0)]
        below = [b for b in column if b.y0 >= first.y0 - 0.2 * body]
        if any(b.height > params.footnotes.small_share * body for b in below):
            continue  # body text follows further down: small print inside the column (a caption, a quote)
        above = [b for b in column if b.y1 <= first.y0 + 0.2 * body]
        if not above:
            continue
        nearest = max(above, key=lambda b: b.y1)
        gap = first.y0 - nearest.y1
        if (
            nearest.height < params.footnotes.body_share * body
            or not params.footnotes.min_gap_heights * body <= gap <= params.footnotes.max_gap_heights * body
        ):
            continue
        block = [first, *below]
        if bottom_of(block) < foot or _stacked_rows(block, body, params) > params.footnotes.max_lines:
            continue
        notes.update(id(b) for b in block)
    return notes


def _stacked_rows(boxes: Sequence[Box], h: float, params: LayoutParams) -> int:
    """How many text lines the boxes stand on, one under the other (boxes whose tops are within half a line height
    share one); more than max_lines when white wider than max_line_gap_heights parts two of them (figure labels)."""
    rows: list[list[float]] = []  # top and bottom of each line
    for b in sorted(boxes, key=lambda b: b.y0):
        if rows and b.y0 - rows[-1][0] <= h / 2:
            rows[-1][1] = max(rows[-1][1], b.y1)
            continue
        if rows and b.y0 - rows[-1][1] > params.footnotes.max_line_gap_heights * h:
            return params.footnotes.max_lines + 1
        rows.append([b.y0, b.y1])
    return len(rows)
