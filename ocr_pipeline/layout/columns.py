"""Page-level column evidence for reading order: line-number stacks and gutters that a few boxes cross.

Two things defeat a plain X-Y cut on real pages. Line numbers (patents print 5, 10, 15 ... in the gutter; journal
proofs number every line in the margin) fill the white gap between columns, or glue a number to every line.
And a full-width title, figure caption or pull quote crosses the gutter, so no gap runs a region's full height.
Both are found here from geometry only; reading_order.py decides what to do with them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ocr_pipeline.layout.boxes import Box, x_span, y_span
from ocr_pipeline.layout.budget import MAX_GUTTER_BINS, LayoutBudget
from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS, LayoutParams


class RegionTooLarge(Exception):
    """A region too wide for its line height to search for gutters in MAX_GUTTER_BINS bins."""


def _is_number(b: Box, h: float, params: LayoutParams) -> bool:
    text = b.text.strip()
    return (
        0 < len(text) <= params.columns.max_number_digits
        and text.isdigit()
        and b.x1 - b.x0 <= params.columns.max_number_width_heights * h
    )


def line_number_stacks(
    boxes: Sequence[Box], h: float, budget: LayoutBudget | None = None, params: LayoutParams = LAYOUT_PARAMS
) -> list[list[Box]]:
    """Stacks of line numbers: lone numbers in one narrow vertical band, increasing downwards, that no other box
    reaches into (so a table's number column, which its row's other cells sit beside, is no stack only if crossed)."""
    budget = budget or LayoutBudget()
    budget.charge(len(boxes))
    numbers = sorted((b for b in boxes if _is_number(b, h, params)), key=lambda b: (b.x0 + b.x1) / 2)
    clusters: list[list[Box]] = []
    for b in numbers:
        # Numbers of one stack are aligned on one edge: their centres differ by less than a line height.
        if clusters and (b.x0 + b.x1) / 2 - (clusters[-1][-1].x0 + clusters[-1][-1].x1) / 2 <= h:
            clusters[-1].append(b)
        else:
            clusters.append([b])
    stacks: list[list[Box]] = []
    for cluster in clusters:
        if len(cluster) < params.columns.min_stack_numbers:
            continue
        cluster.sort(key=lambda b: b.y0)
        values = [int(b.text.strip()) for b in cluster]
        if any(b >= a for a, b in zip(values[1:], values, strict=False)):
            continue  # line numbers only grow down the page
        x0, x1 = x_span(cluster)
        y0, y1 = cluster[0].y0, cluster[-1].y1
        budget.charge(len(boxes))
        ids = {id(b) for b in cluster}
        crossed = any(
            b.x0 < x1 and b.x1 > x0 and b.y0 < y1 and b.y1 > y0 for b in boxes if id(b) not in ids and b.text.strip()
        )
        if not crossed:
            stacks.append(cluster)
    return stacks


def _height_cover(boxes: Sequence[Box]) -> float:
    """Total height of the union of the boxes' vertical extents."""
    total, end = 0.0, float("-inf")
    for y0, y1 in sorted((b.y0, b.y1) for b in boxes):
        if y1 > end:
            total += y1 - max(y0, end)
            end = y1
    return total


def gutter_candidates(
    boxes: Sequence[Box],
    h: float,
    min_gap: float,
    budget: LayoutBudget | None = None,
    params: LayoutParams = LAYOUT_PARAMS,
) -> list[float]:
    """The x of white rivers between two columns that a few boxes may cross, best (least crossed) first.

    Bins of an eighth of a line height across the region count the height of the boxes over them; each run of bins at
    least `min_gap` wide under the columns' max_crossing_share of the region's height, with text along most of the
    height on both sides, gives its least covered bin. Raises RegionTooLarge where that takes more than
    MAX_GUTTER_BINS bins."""
    # Imported here, not at start-up: most regions have a clean gap and never get this far.
    import numpy as np

    budget = budget or LayoutBudget()
    x_min, x_max = x_span(boxes)
    y_min, y_max = y_span(boxes)
    step = h / 8
    bins = (x_max - x_min) / step + 1
    if not bins < MAX_GUTTER_BINS:  # also NaN: a line height of 0 or an infinite extent
        raise RegionTooLarge(f"gutter search of {bins:.3g} bins (bound {MAX_GUTTER_BINS})")
    n = int(bins)
    if n < 16:
        return []
    budget.charge(len(boxes) + n)
    delta = np.zeros(n + 2)
    for b in boxes:
        # Boxes are the glyphs' own: OCR boxes lose the detector's padding where they are made (scan_layout.py).
        if b.x1 <= b.x0:
            continue
        # A tall title counts as one line: the share is of lines crossing, not of ink.
        weight = min(b.y1 - b.y0, h)
        delta[int((b.x0 - x_min) / step)] += weight
        delta[int((b.x1 - x_min) / step) + 1] -= weight
    cover = np.cumsum(delta)[:n]
    low = np.flatnonzero(cover <= params.columns.max_crossing_share * (y_max - y_min))
    found: list[tuple[float, float]] = []
    width = max(1, int(min_gap / step))
    for run in np.split(low, np.flatnonzero(np.diff(low) > 1) + 1) if low.size else []:
        if run.size < width:
            continue
        # The middle of the least covered bins: a gutter beside a figure's white space is as wide as both.
        least = run[cover[run] <= cover[run].min() + 1e-9]
        centre = int(least[len(least) // 2])
        x = x_min + (centre + 0.5) * step
        budget.charge(2 * len(boxes))
        sides = [b for b in boxes if b.x1 <= x], [b for b in boxes if b.x0 >= x]
        if min(_height_cover(side) for side in sides) >= params.columns.min_side_height_share * (y_max - y_min):
            found.append((float(cover[centre]), x))
    return [x for _, x in sorted(found)]


def crossing(
    boxes: Sequence[Box], x: float, h: float, budget: LayoutBudget | None = None, params: LayoutParams = LAYOUT_PARAMS
) -> tuple[list[Box], list[Box], list[Box]]:
    """Boxes over the gutter at `x`: those spanning most of both sides (titles, full-width captions), those in
    between (neither spanning nor merely overhanging one side: an inset, or a region of another layout), and marks
    in the gutter itself (a line number, a footnote sign: a few characters)."""
    budget = budget or LayoutBudget()
    budget.charge(len(boxes))
    x_min, x_max = x_span(boxes)
    wide, middle, marks = [], [], []
    for b in boxes:
        if not b.x0 < x < b.x1 or min(x - b.x0, b.x1 - x) <= params.columns.max_overhang_share * (b.x1 - b.x0):
            continue
        if (
            len(b.text.strip()) <= params.columns.max_number_digits
            and b.x1 - b.x0 <= params.columns.max_number_width_heights * h
        ):
            marks.append(b)
            continue
        budget.charge(len(boxes))  # _beside looks at every box
        wide_enough = x - b.x0 >= params.columns.min_span_side_share * (
            x - x_min
        ) and b.x1 - x >= params.columns.min_span_side_share * (x_max - x)
        # A centred title line is narrower than the columns, but nothing stands beside it (a margin mark or stamp
        # of a few characters does not count: it sits beside lines of either column too). A wide line with text on
        # both sides of it is no title: it is an inset (a caption, a pull quote) the columns run around.
        left, right = _beside(b, boxes, params)
        if (wide_enough and not (left and right)) or not (left or right):
            wide.append(b)
        else:
            middle.append(b)
    return wide, middle, marks


def _beside(b: Box, boxes: Sequence[Box], params: LayoutParams) -> tuple[bool, bool]:
    """Whether text (more than a mark's few characters) stands left of `b`, and right of it, on its rows."""
    row = [
        o
        for o in boxes
        if o is not b and len(o.text.strip()) > params.columns.max_number_digits and o.y0 < b.y1 and o.y1 > b.y0
    ]
    return any(o.x1 <= b.x0 for o in row), any(o.x0 >= b.x1 for o in row)


def inset_block(
    seeds: Sequence[Box], boxes: Sequence[Box], budget: LayoutBudget | None = None, params: LayoutParams = LAYOUT_PARAMS
) -> list[Box]:
    """`seeds` (an inset's lines over a gutter) with the lines of `boxes` that continue their block: the same size,
    aligned on the left edge or the centre, one below the other (a caption's last line may stop short of the gutter)."""
    budget = budget or LayoutBudget()
    block = list(seeds)
    ids = {id(b) for b in block}
    grown = True
    while grown:
        grown = False
        budget.charge(len(boxes) * len(block))
        for o in boxes:
            if id(o) in ids or not any(_continues(b, o, params) for b in block):
                continue
            block.append(o)
            ids.add(id(o))
            grown = True
    return block


def _continues(b: Box, o: Box, params: LayoutParams) -> bool:
    """Whether `o` is the line above or below `b` in one block of text."""
    h = max(b.height, o.height)
    if abs(b.height - o.height) > params.columns.inset_size_share * h:
        return False
    if not -0.3 * h <= max(o.y0 - b.y1, b.y0 - o.y1) <= params.columns.inset_leading_heights * h:
        return False
    centred = abs((b.x0 + b.x1) / 2 - (o.x0 + o.x1) / 2) <= params.columns.inset_align_heights * h
    return abs(b.x0 - o.x0) <= params.columns.inset_align_heights * h or centred
