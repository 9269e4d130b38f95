"""The simple reading order: lines top to bottom, each left to right, in O(n log n) whatever the boxes.

The X-Y cut (reading_order.py) reads a block's leaves with it, and a region past a bound of the page's
LayoutBudget (budget.py) is read with it as a whole: it has no loop over pairs of boxes to bound.
"""

from __future__ import annotations

from collections.abc import Sequence

from ocr_pipeline.layout.boxes import Box
from ocr_pipeline.layout.row_groups import READING_LINE_RULE, group_rows


def simple_lines(boxes: Sequence[Box]) -> list[list[Box]]:
    """The simple reading order: boxes grouped into lines (vertical overlap) top to bottom, each left to right.
    O(n log n) in the boxes (a line's band is kept as running medians), so it is what a region past a bound gets."""
    # The line's band is its members' median extent, not their union: a union grows with every skewed or tall
    # box that joins, until it swallows the lines below (a whole scanned page became one line).
    return group_rows(boxes, READING_LINE_RULE)
