"""Reading order of text boxes (OCR lines or PDF text runs): pure geometry, no OCR or PDF imports.

Method: a recursive X-Y cut that prefers column cuts. A region is first split at a vertical white
gap that runs its full height (columns, read left then right). Otherwise it is cut into horizontal
strips at every white band; consecutive strips are merged while their union still has a column
gap, so a full-width header becomes its own block before the two-column body, and the body is read
column by column instead of line by line across both columns. Leaves are grouped into lines.
Coordinates have y growing downwards (image convention); PDF callers flip y first.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

# A column gap must be at least this many median line heights wide; word gaps are ~0.3.
COLUMN_GAP_LINE_HEIGHTS = 0.6
# Each side of a column cut must be at least this share of the region's width...
MIN_COLUMN_WIDTH_SHARE = 0.3
# ... and hold at least this many characters.
MIN_COLUMN_TEXT_CHARS = 20


@dataclass(frozen=True)
class Box:
    """One positioned piece of text: an OCR line or a PDF text run (y grows downwards)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str

    @property
    def height(self) -> float:
        """Box height (never below a tiny epsilon, so ratios stay finite)."""
        return max(self.y1 - self.y0, 1e-6)

    @property
    def yc(self) -> float:
        """Vertical centre."""
        return (self.y0 + self.y1) / 2


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


def find_column_cut(boxes: Sequence[Box], line_height: float | None = None) -> float | None:
    """The x of the widest full-height gap splitting `boxes` into two text columns, or None."""
    if len(boxes) < 2:
        return None
    h = line_height or _median_height(boxes)
    x_min, x_max = min(b.x0 for b in boxes), max(b.x1 for b in boxes)
    best: tuple[float, float] | None = None
    for a, b in _gaps([(bx.x0, bx.x1) for bx in boxes], COLUMN_GAP_LINE_HEIGHTS * h):
        # Both sides must be wide, as text columns are; table cells, labels and equation
        # numbers beside a formula are narrow, and they are read row by row instead.
        if min(a - x_min, x_max - b) < MIN_COLUMN_WIDTH_SHARE * (x_max - x_min):
            continue
        x = (a + b) / 2
        if not _texty([bx for bx in boxes if bx.x1 <= x]) or not _texty([bx for bx in boxes if bx.x0 >= x]):
            continue
        if best is None or b - a > best[1] - best[0]:
            best = (a, b)
    return None if best is None else (best[0] + best[1]) / 2


def _texty(boxes: Sequence[Box]) -> bool:
    """Whether boxes hold enough text to be a column (not a lone label or number)."""
    return sum(len(b.text.strip()) for b in boxes) >= MIN_COLUMN_TEXT_CHARS


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


def _lines(boxes: Sequence[Box]) -> list[list[Box]]:
    """Group boxes of one block into lines (vertical overlap), each sorted left to right."""
    lines: list[list[Box]] = []
    for b in sorted(boxes, key=lambda b: b.yc):
        if lines:
            last = lines[-1]
            top, bot = min(x.y0 for x in last), max(x.y1 for x in last)
            overlap = min(bot, b.y1) - max(top, b.y0)
            if overlap >= 0.5 * min(b.height, bot - top):
                last.append(b)
                continue
        lines.append([b])
    return [sorted(line, key=lambda b: b.x0) for line in lines]


def _order(boxes: list[Box], h: float, depth: int = 0) -> list[list[Box]]:
    if len(boxes) <= 1 or depth > 50:
        return _lines(boxes) if boxes else []
    cut = find_column_cut(boxes, h)
    if cut is not None:
        left = [b for b in boxes if b.x1 <= cut]
        right = [b for b in boxes if b.x1 > cut]
        return _order(left, h, depth + 1) + _order(right, h, depth + 1)
    strips = _strips(boxes, h)
    if len(strips) == 1:
        return _lines(boxes)
    # Merge consecutive strips while the merged block still has a column gap.
    blocks: list[list[Box]] = [strips[0]]
    for strip in strips[1:]:
        merged = blocks[-1] + strip
        if find_column_cut(merged, h) is not None:
            blocks[-1] = merged
        else:
            blocks.append(strip)
    out: list[list[Box]] = []
    for block in blocks:
        if len(block) == len(boxes):  # cannot happen (no cut on the whole), but never loop
            return _lines(boxes)
        out.extend(_order(block, h, depth + 1))
    return out


def order_lines(boxes: Sequence[Box]) -> list[list[Box]]:
    """Boxes grouped into lines, in reading order: headers, then columns one after another."""
    boxes = [b for b in boxes if b.text.strip()]
    if not boxes:
        return []
    return _order(list(boxes), _median_height(boxes))


def join_line(line: Sequence[Box], space_gap: float = 0.0) -> str:
    """Join one line's boxes; a space only where the gap exceeds `space_gap` line heights."""
    parts: list[str] = []
    prev: Box | None = None
    for b in line:
        text = b.text.strip()
        if prev is not None:
            gap = b.x0 - prev.x1
            if gap > space_gap * max(b.height, prev.height) or space_gap <= 0:
                parts.append(" ")
        parts.append(text)
        prev = b
    return "".join(parts)


def order_text(boxes: Sequence[Box], space_gap: float = 0.0) -> str:
    """Plain text of `boxes` in reading order, one output line per visual line."""
    return "\n".join(join_line(line, space_gap) for line in order_lines(boxes))


def looks_like_table(lines: Sequence[Sequence[Box]]) -> bool:
    """Cheap table guess: many lines split into three or more separate cells."""
    multi = sum(1 for line in lines if len(line) >= 3)
    return multi >= 3 and multi >= 0.3 * len(lines)
