"""Reading order of text boxes (OCR lines or PDF text runs): pure geometry, no OCR or PDF imports.

Method: a recursive X-Y cut that prefers column cuts. A region is first split at a vertical white
gap that runs its full height (columns, read left then right). Otherwise it is cut into horizontal
strips at every white band; consecutive strips are merged while their union still has a column
gap, so a full-width header becomes its own block before the two-column body, and the body is read
column by column instead of line by line across both columns. Leaves are grouped into lines.
Coordinates have y growing downwards (image convention); PDF callers flip y first.

Every loop over a region's boxes is charged to the page's LayoutBudget (layout_budget.py): past it, and for a region
whose gutter search would need too many bins, the region is read in the simple reading order (`simple_lines`).
"""

from __future__ import annotations

import bisect
import statistics
from collections.abc import Sequence

from ocr_pipeline.layout.boxes import Box, x_span, y_span
from ocr_pipeline.layout.budget import BudgetSpent, LayoutBudget
from ocr_pipeline.layout.columns import RegionTooLarge, crossing, gutter_candidates, inset_block, line_number_stacks
from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS, LayoutParams
from ocr_pipeline.layout.simple_order import simple_lines


def _median_height(boxes: Sequence[Box]) -> float:
    return statistics.median(b.height for b in boxes) if boxes else 1.0


def _gaps(intervals: list[tuple[float, float]], min_gap: float) -> list[tuple[float, float]]:
    """White gaps at least `min_gap` wide between the union of 1-D intervals."""
    intervals = sorted(intervals)
    gaps, end = [], intervals[0][1]
    for a, b in intervals[1:]:
        if a - end >= min_gap:
            gaps.append((end, a))
        end = max(end, b)
    return gaps


def find_column_cut(
    boxes: Sequence[Box],
    line_height: float | None = None,
    budget: LayoutBudget | None = None,
    params: LayoutParams = LAYOUT_PARAMS,
) -> float | None:
    """The x of the widest full-height gap splitting `boxes` into two text columns, or None."""
    if len(boxes) < 2:
        return None
    budget = budget or LayoutBudget()
    budget.charge(len(boxes))
    h = line_height or _median_height(boxes)
    x_min, x_max = x_span(boxes)
    best: tuple[float, float] | None = None
    for a, b in _gaps([(bx.x0, bx.x1) for bx in boxes], params.columns.column_gap_line_heights * h):
        # Both sides must be wide, as text columns are; table cells, labels and equation
        # numbers beside a formula are narrow, and they are read row by row instead.
        if min(a - x_min, x_max - b) < params.columns.min_column_width_share * (x_max - x_min):
            continue
        budget.charge(len(boxes))
        x = (a + b) / 2
        if not _texty([bx for bx in boxes if bx.x1 <= x], params) or not _texty(
            [bx for bx in boxes if bx.x0 >= x], params
        ):
            continue
        if best is None or b - a > best[1] - best[0]:
            best = (a, b)
    return None if best is None else (best[0] + best[1]) / 2


def _texty(boxes: Sequence[Box], params: LayoutParams) -> bool:
    """Whether boxes hold enough text to be a column (not a lone label or number)."""
    return sum(len(b.text.strip()) for b in boxes) >= params.columns.min_column_text_chars


def _prose(boxes: Sequence[Box], params: LayoutParams) -> bool:
    """Whether boxes read as a text column: enough text, mostly letters (a column of amounts or figures beside
    its labels is a table, read row by row)."""
    chars = [c for b in boxes for c in b.text if not c.isspace()]
    if len(chars) < params.columns.min_column_text_chars:
        return False
    return sum(c.isalpha() for c in chars) >= params.columns.min_letter_share * len(chars)


def _strips(boxes: Sequence[Box], h: float) -> list[list[Box]]:
    """Split into horizontal strips at every white band (top to bottom)."""
    ordered = sorted(boxes, key=lambda b: (b.y0, b.x0))
    strips: list[list[Box]] = [[ordered[0]]]
    bottom = ordered[0].y1
    for b in ordered[1:]:
        # Small overlaps (padded OCR boxes) still count as a white band between strips.
        if b.y0 >= bottom - 0.15 * min(b.height, h):
            strips.append([b])
            bottom = b.y1
        else:
            strips[-1].append(b)
            bottom = max(bottom, b.y1)
    return strips


_lines = simple_lines  # the leaves of the cut: lines of one block


def _order(boxes: list[Box], h: float, budget: LayoutBudget, params: LayoutParams, depth: int = 0) -> list[list[Box]]:
    if len(boxes) <= 1 or depth > 50:
        return _lines(boxes) if boxes else []
    budget.charge(len(boxes) + params.columns.region_visits)
    try:
        return _order_region(boxes, h, budget, params, depth)
    except RegionTooLarge as exc:
        budget.note(f"{exc}: region read in simple reading order")
        return _lines(boxes)


def _order_region(
    boxes: list[Box], h: float, budget: LayoutBudget, params: LayoutParams, depth: int
) -> list[list[Box]]:
    cut = find_column_cut(boxes, h, budget, params)
    if cut is not None:
        left = [b for b in boxes if b.x1 <= cut]
        right = [b for b in boxes if b.x1 > cut]
        return _order(left, h, budget, params, depth + 1) + _order(right, h, budget, params, depth + 1)
    split = _crossed_gutter(boxes, h, budget, params, depth)
    if split is not None:
        return split
    strips = _strips(boxes, h)
    if len(strips) == 1:
        return _lines(boxes)
    # Merge consecutive strips while the merged block still has a column gap.
    blocks: list[list[Box]] = [strips[0]]
    k = 1
    while k < len(strips):
        merged = blocks[-1] + strips[k]
        budget.charge(len(merged))
        if find_column_cut(merged, h, budget, params) is not None:
            end: int | None = k
        else:
            end = _column_start(blocks[-1], strips, k, h, budget, params)
        if end is None:
            blocks.append(strips[k])
            k += 1
            continue
        blocks[-1] = blocks[-1] + [b for strip in strips[k : end + 1] for b in strip]
        k = end + 1
    out: list[list[Box]] = []
    for block in blocks:
        if len(block) == len(boxes):  # cannot happen (no cut on the whole), but never loop
            return _lines(boxes)
        out.extend(_order(block, h, budget, params, depth + 1))
    return out


def _column_start(
    block: list[Box], strips: list[list[Box]], k: int, h: float, budget: LayoutBudget, params: LayoutParams
) -> int | None:
    """The last of the strips from `k` on that, taken with `block`, first show a column gap, or None.

    The first rows of a column region may be too few or too narrow to show their gutter: a heading beside the
    right column's first line, a diagram's first labels beside the text. Strips are added while some white gap is
    left between the boxes (adding boxes only narrows the gaps), at most the columns' lookahead_strips of them; the
    columns found must be prose."""
    union = list(block)
    for end in range(k, min(k + params.columns.lookahead_strips, len(strips))):
        union += strips[end]
        budget.charge(len(union))
        if not _gaps([(b.x0, b.x1) for b in union], params.columns.column_gap_line_heights * h):
            return None
        if find_column_cut(union, h, budget, params) is not None:
            return end if _prose_columns(union, strips[end + 1 :], h, budget, params) else None
    return None


def _prose_columns(
    block: list[Box], following: list[list[Box]], h: float, budget: LayoutBudget, params: LayoutParams
) -> bool:
    """Whether `block`, with the strips that go on keeping its column gap, parts prose from prose: a table's
    header row may read as words, its label and number columns are read row by row."""
    block = list(block)
    for strip in following:
        if find_column_cut(block + strip, h, budget, params) is None:
            break
        block += strip
    cut = find_column_cut(block, h, budget, params)
    sides = ([b for b in block if b.x1 <= cut], [b for b in block if b.x0 >= cut]) if cut is not None else ()
    # Each side a column of text: prose, with a line of a sentence's length (a table's cells are short).
    return bool(sides) and all(
        _prose(side, params) and max(len(b.text.strip()) for b in side) >= params.columns.line_chars for side in sides
    )


def _crossed_gutter(
    boxes: list[Box], h: float, budget: LayoutBudget, params: LayoutParams, depth: int
) -> list[list[Box]] | None:
    """Columns beside a gutter that a title, caption or pull quote crosses: the boxes spanning it cut the region
    into bands read one after another, each band column by column; boxes that only overhang it keep their side."""
    x_min, x_max = x_span(boxes)
    for x in gutter_candidates(boxes, h, params.columns.river_gap_line_heights * h, budget, params):
        if min(x - x_min, x_max - x) < params.columns.min_column_width_share * (x_max - x_min):
            continue
        budget.charge(4 * len(boxes))
        across, middle, marks = crossing(boxes, x, h, budget, params)
        ids = {id(b) for b in across + marks}
        # An inset the columns run around (a caption, a pull quote): its block is read after the columns beside it.
        insets = inset_block(middle, [b for b in boxes if id(b) not in ids], budget, params) if middle else []
        ids |= {id(b) for b in insets}
        rest = [b for b in boxes if id(b) not in ids]
        left = [b for b in rest if (b.x0 + b.x1) / 2 < x]
        right = [b for b in rest if (b.x0 + b.x1) / 2 >= x]
        if not _prose(left, params) or not _prose(right, params) or not _enclosed(insets, left, right, h, params):
            continue
        if not across:
            # Marks in the gutter (line numbers) are read between the columns, not glued to a line of either.
            columns = (
                _order(left, h, budget, params, depth + 1) + _lines(marks) + _order(right, h, budget, params, depth + 1)
            )
            return columns + _order(insets, h, budget, params, depth + 1)
        across.sort(key=lambda b: b.yc)
        bands: list[list[Box]] = [[] for _ in range(len(across) + 1)]
        centres = [a.yc for a in across]
        for b in rest + marks + insets:
            bands[bisect.bisect_left(centres, b.yc)].append(b)  # the number of spanning boxes above its centre
        out: list[list[Box]] = []
        for k, band in enumerate(bands):
            out.extend(_order(band, h, budget, params, depth + 1) if band else [])
            if k < len(across):
                out.append([across[k]])
        return out
    return None


def _enclosed(insets: list[Box], left: list[Box], right: list[Box], h: float, params: LayoutParams) -> bool:
    """Whether both columns run on right above and right below the insets (no insets: trivially): a column of another
    layout over the gutter (the middle one of three above a two-column section, the middle one of three captions
    under figures) is no inset, and the region is left to be cut into strips."""
    if not insets:
        return True
    top, bottom = y_span(insets)
    reach = params.columns.enclosing_gap_heights * h
    return all(
        any(top - reach <= b.y1 <= top for b in side) and any(bottom <= b.y0 <= bottom + reach for b in side)
        for side in (left, right)
    )


def is_upright(box: Box, line_height: float, params: LayoutParams = LAYOUT_PARAMS) -> bool:
    """Whether a box holds text set upright (running up or down the page): tall for a line and for its width."""
    return (
        box.height >= params.columns.upright_heights * line_height
        and box.height >= params.columns.upright_heights * (box.x1 - box.x0)
    )


def order_lines(
    boxes: Sequence[Box], budget: LayoutBudget | None = None, params: LayoutParams = LAYOUT_PARAMS
) -> list[list[Box]]:
    """Boxes grouped into lines, in reading order: headers, then columns one after another; past the page's
    `budget`, in the simple reading order (noted in the budget)."""
    boxes = [b for b in boxes if b.text.strip()]
    if not boxes:
        return []
    budget = budget or LayoutBudget()
    h = _median_height(boxes)
    try:
        # Line numbers in a margin or gutter are read after the text: beside it they split every sentence they touch.
        stacks = line_number_stacks(boxes, h, budget, params)
        # So is text running up or down the page (an OCR'd margin stamp): its tall box would join every line
        # beside it.
        upright = [b for b in boxes if is_upright(b, h, params)]
        aside = [[b] for stack in stacks for b in stack] + [[b] for b in upright]
        skip = {id(line[0]) for line in aside}
        rest = [b for b in boxes if id(b) not in skip]
        return (_order(rest, h, budget, params) if rest else []) + aside
    except BudgetSpent:
        return simple_lines(boxes)


def join_line(line: Sequence[Box], space_gap: float = 0.0) -> str:
    """Join one line's boxes; a space only where the gap exceeds `space_gap` line heights."""
    parts: list[str] = []
    prev: Box | None = None
    for b in line:
        text = b.text.strip()
        if prev is not None:
            gap = b.x0 - prev.x1
            h = max(b.height, prev.height)
            # A box that starts a line height or more before the last one ended is the next row of two grouped into
            # one line: a word break, unless the row ended on a hyphen marker (pdfium's U+FFFE/0x02).
            wrapped = gap < -h and not parts[-1].endswith(("\ufffe", "\x02"))
            if gap > space_gap * h or wrapped or space_gap <= 0:
                parts.append(" ")
        parts.append(text)
        prev = b
    return "".join(parts)


def order_text(
    boxes: Sequence[Box],
    space_gap: float = 0.0,
    budget: LayoutBudget | None = None,
    params: LayoutParams = LAYOUT_PARAMS,
) -> str:
    """Plain text of `boxes` in reading order, one output line per visual line."""
    return "\n".join(join_line(line, space_gap) for line in order_lines(boxes, budget, params))
