"""The simple reading order: lines top to bottom, each left to right, in O(n log n) whatever the boxes.

The X-Y cut (reading_order.py) reads a block's leaves with it, and a region past a bound of the page's
LayoutBudget (layout_budget.py) is read with it as a whole: it has no loop over pairs of boxes to bound.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from ocr_pipeline.layout.boxes import Box


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


def simple_lines(boxes: Sequence[Box]) -> list[list[Box]]:
    """The simple reading order: boxes grouped into lines (vertical overlap) top to bottom, each left to right.
    O(n log n) in the boxes (a line's band is kept as running medians), so it is what a region past a bound gets."""
    lines: list[list[Box]] = []
    tops = bots = _RunningMedian(0.0)
    for b in sorted(boxes, key=lambda b: b.yc):
        if lines:
            # The line's band is its members' median extent, not their union: a union grows with every skewed or
            # tall box that joins, until it swallows the lines below (a whole scanned page became one line).
            top, bot = tops.value, bots.value
            overlap = min(bot, b.y1) - max(top, b.y0)
            if overlap >= 0.5 * min(b.height, bot - top):
                lines[-1].append(b)
                tops.add(b.y0)
                bots.add(b.y1)
                continue
        lines.append([b])
        tops, bots = _RunningMedian(b.y0), _RunningMedian(b.y1)
    return [sorted(line, key=lambda b: b.x0) for line in lines]
