"""Boxes grouped into visual rows: the one row-grouping primitive, its overlap rule a parameter.

Tables, furniture, the simple reading order and the letterhead rule group rows by different overlap rules that their
outputs were tuned with; each is a named `RowRule` here, so the grouping loop is written once.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ocr_pipeline.layout.boxes import Box


@dataclass(frozen=True)
class RowRule:
    """When a box (taken top to bottom by its centre) joins the row above it."""

    # "union": the row's band is its members' whole extent; "median": their median top and bottom, which a skewed
    # or tall member cannot grow until it swallows the rows below.
    band: Literal["union", "median"]
    # The vertical overlap of box and band needed, as a share (0-1) of the reference height below.
    share: float
    # "smaller": the smaller of the box's and the band's heights; "box": the box's height alone.
    of: Literal["smaller", "box"]
    # True: the overlap must exceed share x height; False: reaching it is enough.
    strict: bool = False


# Table cells (table_html.rows_of): rows of cells whose heights differ, a shared band enough.
TABLE_ROW_RULE = RowRule(band="union", share=0.4, of="smaller")
# The lines furniture is judged by (furniture.py): a running head's pieces differ in height as a table row's cells do
# (a page number set larger than its title), so the same rule, which furniture's thresholds were measured with.
FURNITURE_ROW_RULE = RowRule(band="union", share=0.4, of="smaller")
# The simple reading order's lines (simple_order.simple_lines): O(n log n) whatever the boxes.
READING_LINE_RULE = RowRule(band="median", share=0.5, of="smaller")
# The letterhead rule's rows (scan_layout.letterhead): a box joins when half of it lies in the row.
LETTERHEAD_ROW_RULE = RowRule(band="union", share=0.5, of="box", strict=True)


class _RunningMedian:
    """The median of values added one at a time, in O(log n) an addition (two heaps: the lower half, the upper)."""

    def __init__(self, first: float) -> None:
        self.lower: list[float] = [-first]  # a max-heap, negated
        self.upper: list[float] = []

    def add(self, value: float) -> None:
        """Add one value."""
        if value <= -self.lower[0]:
            heapq.heappush(self.lower, -value)
        else:
            heapq.heappush(self.upper, value)
        if len(self.lower) > len(self.upper) + 1:
            heapq.heappush(self.upper, -heapq.heappop(self.lower))
        elif len(self.upper) > len(self.lower):
            heapq.heappush(self.lower, -heapq.heappop(self.upper))

    @property
    def value(self) -> float:
        """The median: the middle value, or the mean of the two middle ones (as statistics.median)."""
        if len(self.lower) > len(self.upper):
            return -self.lower[0]
        return (-self.lower[0] + self.upper[0]) / 2


class _Band:
    """A row's vertical band as boxes join it: their union or their running median extent."""

    def __init__(self, box: Box, median: bool) -> None:
        self.median = median
        self.tops, self.bots = _RunningMedian(box.y0), _RunningMedian(box.y1)
        self.top, self.bot = box.y0, box.y1

    def add(self, box: Box) -> None:
        """Widen the band by one box."""
        if self.median:
            self.tops.add(box.y0)
            self.bots.add(box.y1)
            self.top, self.bot = self.tops.value, self.bots.value
        else:
            self.top, self.bot = min(self.top, box.y0), max(self.bot, box.y1)


def group_rows(boxes: Sequence[Box], rule: RowRule) -> list[list[Box]]:
    """Boxes grouped into rows by `rule`, top to bottom, each left to right; one pass over the boxes by centre,
    O(n log n) whatever they are."""
    rows: list[list[Box]] = []
    band: _Band | None = None
    for b in sorted(boxes, key=lambda b: b.yc):
        if band is not None:
            overlap = min(band.bot, b.y1) - max(band.top, b.y0)
            need = rule.share * (min(b.height, band.bot - band.top) if rule.of == "smaller" else b.height)
            if overlap > need or (overlap == need and not rule.strict):
                rows[-1].append(b)
                band.add(b)
                continue
        rows.append([b])
        band = _Band(b, rule.band == "median")
    return [sorted(r, key=lambda b: b.x0) for r in rows]
