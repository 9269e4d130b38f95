"""Layout of a scanned page's OCR lines before furniture and reading order: skew, two-page spreads, margin pieces.

Pure geometry on RapidOCR's quads and the Box lists made from them (no OCR, no image):
- Skew: a scan fed in at a slant gives each line a quad whose top edge slopes; its axis-aligned box is taller
  than the line by its width times the slope, and such boxes overlap the lines above and below, so lines merge
  and furniture bands catch body text. The page's dominant slope is the median slope of its long lines; every
  quad is sheared level by it before its box is made, and the box loses the detector's padding.
- Spreads: a scan of two facing pages has a white band at the fold that no line crosses; each side is a page
  of its own (its running head, its page number, its columns). A page of two columns that nothing crosses, cut
  there too, reads the same: its columns one after the other.
- Margin pieces: a letterhead's small corner lines (a name at the left, a telephone number at the right, above
  the heading) and notes written upright in the side margin are furniture, not the letter's text.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

import numpy as np

from ocr_pipeline.layout.boxes import Box, Rule, bottom_of, top_of, width_of, x_span, y_span
from ocr_pipeline.layout.budget import LayoutBudget
from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS, LayoutParams
from ocr_pipeline.layout.reading_order import is_upright
from ocr_pipeline.layout.row_groups import LETTERHEAD_ROW_RULE, group_rows


def page_slope(quads: Sequence[np.ndarray], params: LayoutParams = LAYOUT_PARAMS) -> float:
    """The dominant slope (dy/dx of text lines, y down) of a page's quads; 0.0 when too few long lines show one."""
    slopes = []
    for q in quads:
        q = np.asarray(q, dtype=float)
        top, bottom = q[1] - q[0], q[2] - q[3]
        width = float(np.hypot(*top))
        height = float(np.hypot(*(q[3] - q[0])))
        if top[0] <= 0 or bottom[0] <= 0 or width < params.scan.slope_line_ratio * max(height, 1.0):
            continue
        slopes.append((top[1] / top[0] + bottom[1] / bottom[0]) / 2)
    if len(slopes) < params.scan.min_slope_lines:
        return 0.0
    slope = float(statistics.median(slopes))
    return slope if abs(slope) >= params.scan.min_slope else 0.0


class Leveller:
    """Shears image points by a page's slope, so that its text lines run level and x stays as it is.

    A shear, not a turn: on a page whose lines slope while its columns stand upright (a sheet curved or
    drawn through the scanner unevenly) a turn would tilt the columns' edges and close their gutters; on a page
    turned a little as a whole the columns' edges lean either way.
    """

    def __init__(self, slope: float, width: float, params: LayoutParams = LAYOUT_PARAMS) -> None:
        self.slope, self.cx = slope, width / 2
        self.params = params

    def points(self, pts: np.ndarray) -> np.ndarray:
        """Levelled (x, y) of an (n, 2) array of image points."""
        return np.stack([pts[:, 0], pts[:, 1] - self.slope * (pts[:, 0] - self.cx)], axis=1)

    def box(self, quad: np.ndarray, text: str) -> Box:
        """The levelled quad's bounding box, its ends drawn in by the detector's padding."""
        p = self.points(np.asarray(quad, dtype=float))
        x0, y0, x1, y1 = float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max())
        # The detector grows each box around its glyphs by a share of its height, on every side: two columns set
        # close together overlap by twice that, and no gutter shows between them.
        trim = min(self.params.scan.end_pad_heights * (y1 - y0), (x1 - x0) / 4)
        # Above and below as well: on small print set close, padded boxes of neighbouring lines overlap by half.
        pad = self.params.scan.edge_pad_heights * (y1 - y0)
        return Box(x0 + trim, y0 + pad, x1 - trim, y1 - pad, text)

    def rule(self, rule: Rule) -> Rule:
        """A ruling line moved with the text: its midline sheared, its thickness kept."""
        if rule.horizontal:
            yc, half = (rule.y0 + rule.y1) / 2, (rule.y1 - rule.y0) / 2
            (_, ay), (_, by) = self.points(np.array([[rule.x0, yc], [rule.x1, yc]]))
            return Rule(rule.x0, float((ay + by) / 2 - half), rule.x1, float((ay + by) / 2 + half))
        (_, ay), (_, by) = self.points(
            np.array([[(rule.x0 + rule.x1) / 2, rule.y0], [(rule.x0 + rule.x1) / 2, rule.y1]])
        )
        return Rule(rule.x0, float(ay), rule.x1, float(by))


def level_boxes(
    quads: Sequence[np.ndarray], texts: Sequence[str], width: float, params: LayoutParams = LAYOUT_PARAMS
) -> tuple[list[Box], Leveller]:
    """Boxes of the quads with the page's skew taken out, and the leveller used (its slope 0.0: the page was level),
    for moving the page's ruling lines with them."""
    leveller = Leveller(page_slope(quads, params), width, params)
    return [leveller.box(q, t) for q, t in zip(quads, texts, strict=True)], leveller


def _chars(boxes: Sequence[Box]) -> int:
    return sum(len(b.text.strip()) for b in boxes)


def fold_cut(boxes: Sequence[Box], width: float, params: LayoutParams = LAYOUT_PARAMS) -> float | None:
    """The x of the fold of a two-page spread (a white band near the middle that no box crosses), or None."""
    boxes = [b for b in boxes if b.text.strip()]
    if len(boxes) < 4:
        return None
    h = statistics.median(b.height for b in boxes)
    total, (top, bottom) = _chars(boxes), y_span(boxes)
    spans = sorted((b.x0, b.x1) for b in boxes)
    best: tuple[float, float] | None = None
    end = spans[0][1]
    for x0, x1 in spans[1:]:
        a, b = end, x0
        end = max(end, x1)
        if (
            b - a < params.scan.fold_gap_heights * h
            or abs((a + b) / 2 - width / 2) > params.scan.fold_reach_share * width
        ):
            continue
        if best is None or b - a > best[1] - best[0]:
            best = (a, b)
    if best is None:
        return None
    x = (best[0] + best[1]) / 2
    for side in ([b for b in boxes if b.x1 <= x], [b for b in boxes if b.x0 >= x]):
        # Each side a page of text lines, not a sidebar, a column of labels beside a picture or a drawing's labels.
        lines = [b for b in side if b.x1 - b.x0 >= params.scan.fold_line_heights * h]
        if len(lines) < params.scan.fold_min_lines or _chars(side) < params.scan.fold_min_text_share * total:
            return None
        if bottom_of(lines) - top_of(lines) < params.scan.fold_min_span_share * (bottom - top):
            return None
    return x


def halves(
    boxes: Sequence[Box], width: float, params: LayoutParams = LAYOUT_PARAMS
) -> list[tuple[list[Box], float, float]]:
    """The page's pages: (boxes, left edge, right edge) for each side of a fold, or the whole page."""
    x = fold_cut(boxes, width, params)
    if x is None:
        return [(list(boxes), 0.0, width)]
    return [([b for b in boxes if b.x1 <= x], 0.0, x), ([b for b in boxes if b.x0 >= x], x, width)]


def margin_pieces(
    boxes: Sequence[Box],
    left: float,
    right: float,
    height: float,
    budget: LayoutBudget | None = None,
    params: LayoutParams = LAYOUT_PARAMS,
) -> set[int]:
    """ids of letterhead corner pieces and upright margin notes among one page's boxes (x from `left` to `right`)."""
    boxes = [b for b in boxes if b.text.strip()]
    if len(boxes) < 4:
        return set()
    budget = budget or LayoutBudget()
    h = statistics.median(b.height for b in boxes)
    flat = [b for b in boxes if not is_upright(b, h, params)]
    drop: set[int] = set()
    if flat:
        body_left, body_right = x_span(flat)
        # A note written up or down the side margin, wholly outside the lines of text.
        drop |= {id(b) for b in boxes if is_upright(b, h, params) and (b.x0 >= body_right or b.x1 <= body_left)}
    width = right - left
    for b in flat:
        corner = (
            b.x1 <= left + params.scan.corner_side_share * width
            or b.x0 >= right - params.scan.corner_side_share * width
        )
        if not corner or b.y1 > params.scan.corner_top_share * height or b.height > params.scan.corner_max_heights * h:
            continue
        budget.charge(3 * len(flat))
        # Isolated: nothing above it, and on its row nothing toward the middle but another corner piece.
        above = any(o.y1 <= b.y0 for o in flat if o is not b and min(o.x1, b.x1) - max(o.x0, b.x0) > 0)
        row = [o for o in flat if o is not b and min(o.y1, b.y1) - max(o.y0, b.y0) > 0.5 * min(o.height, b.height)]
        inward = [
            o
            for o in row
            if left + params.scan.corner_side_share * width
            < (o.x0 + o.x1) / 2
            < right - params.scan.corner_side_share * width
        ]
        heading = any(
            o.y0 >= b.y1
            and o.y1 <= 2 * params.scan.corner_top_share * height
            and o.height >= params.scan.heading_size * b.height
            for o in flat
        )
        if heading and not above and not inward:
            drop.add(id(b))
    return drop


def letterhead(boxes: Sequence[Box], height: float, params: LayoutParams = LAYOUT_PARAMS) -> set[int]:
    """ids of a letterhead's lines: the small lines above a name set large at the top of the page, or a top block
    of short lines set mostly small and standing off the letter (an attorney's name and address in small caps)."""
    boxes = [b for b in boxes if b.text.strip()]
    if len(boxes) < 4:
        return set()
    h = statistics.median(b.height for b in boxes)
    flat = [b for b in boxes if not is_upright(b, h, params)]
    top = [b for b in flat if b.y1 <= params.scan.title_top_share * height]
    title = max(top, key=lambda b: b.height, default=None)
    if title is not None and title.height >= params.scan.title_heights * h:
        # Lines wholly above the name, each smaller than it (a motto, "Founded 1814", a telephone number).
        return {id(b) for b in flat if b.y1 <= title.y0 + 0.25 * title.height and b.height * 1.5 <= title.height}
    rows = group_rows(flat, LETTERHEAD_ROW_RULE)
    left, right = x_span(flat)
    block: list[list[Box]] = []
    for k, row in enumerate(rows[: params.scan.letterhead_rows + 1]):
        block.append(row)
        nxt = rows[k + 1] if k + 1 < len(rows) else None
        gap = None if nxt is None else top_of(nxt) - bottom_of(row)
        if gap is not None and gap > params.scan.letterhead_apart_heights * h:
            break
    else:
        return set()
    if (
        len(block) > params.scan.letterhead_rows
        or bottom_of(b for row in block for b in row) > params.scan.corner_top_share * height
    ):
        return set()
    short = all(width_of(r) < params.scan.letterhead_width_share * (right - left) for r in block)
    small = sum(max(b.height for b in r) < params.scan.small_share * h for r in block)
    if short and len(block) >= 2 and 2 * small > len(block):
        return {id(b) for r in block for b in r}
    return set()
