"""What a learned furniture scorer sees of each line near a page edge: geometry, size, isolation, position, text shape.

The features of the experiment in benchmarks/train_furniture.py (a scorer trained on the tuning part; not adopted:
it generalised worse than the rules, see benchmarks/README.md).

Every feature is a ratio or a flag (line heights of the page's own body text, shares of the page or of the text's
width), so a page's scale, its language and its words do not enter; text enters only through shapes that say how
documents are made (a page number, a date, a URL, a sentence's end, capitals, digits). `FEATURES` names the columns.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ocr_pipeline.layout.band_lines import row_text as line_text
from ocr_pipeline.layout.band_lines import signature
from ocr_pipeline.layout.boxes import Box
from ocr_pipeline.layout.furniture_patterns import BAND_MARK, EDGE_NUMBER, NOTICE, is_page_number

Row = list[Box]
FEATURES = (
    "from_top", "from_bottom", "nearer_top", "rank_from_edge", "rows_outward",
    "gap_in", "gap_out", "gap_in_over_leading", "leading",
    "size", "size_min", "size_in_neighbour",
    "width_share", "left_off", "right_off", "centre_off", "page_left", "page_right",
    "pieces", "widest_gap", "aligned_with_neighbour",
    "chars", "words", "letters", "digits", "capitals", "sentence_end", "page_number", "clear_number",
    "edge_number", "band_mark", "notice", "equation", "repeated",
    "block_rows", "block_index", "block_depth",
    "page_rows", "body_height", "text_width",
)  # fmt: skip
FAR = 30.0  # a gap to nothing (the page's edge) or past this many line heights
_SENTENCE = re.compile(r"[a-z]{2,}[.!?]$")
_WORD = re.compile(r"\w+")


def _top(row: Row) -> float:
    return min(b.y0 for b in row)


def _bottom(row: Row) -> float:
    return max(b.y1 for b in row)


@dataclass(frozen=True)
class PageFrame:
    """What a page's lines are measured against: its body line height and leading, its text's and its own span."""

    h: float
    leading: float
    text_left: float
    text_right: float
    left: float
    width: float
    height: float


def page_frame(rows: Sequence[Row], left: float, width: float, height: float) -> PageFrame:
    """The page's frame from its rows (a median box height, the usual white between lines, the text's span)."""
    boxes = [b for row in rows for b in row]
    h = statistics.median(b.height for b in boxes)
    gaps = [_top(b) - _bottom(a) for a, b in zip(rows, rows[1:], strict=False)]
    gaps = [max(g, 0.0) for g in gaps if -h < g < 2 * h]
    leading = statistics.median(gaps) if gaps else 0.25 * h
    return PageFrame(h, leading, min(b.x0 for b in boxes), max(b.x1 for b in boxes), left, width, height)


def _clear_numbers(row: Row, h: float, clear: float) -> int:
    """How many page-number boxes stand `clear` line heights clear of the rest of their line (or alone on it)."""
    n = 0
    for i, b in enumerate(row):
        if not is_page_number(b.text):
            continue
        before = b.x0 - row[i - 1].x1 if i > 0 else math.inf
        after = row[i + 1].x0 - b.x1 if i + 1 < len(row) else math.inf
        n += min(before, after) > clear * h
    return n


def _blocks(rows: Sequence[Row], frame: PageFrame) -> dict[int, tuple[int, int, float]]:
    """Per row index near an edge: (rows in its block, the block's place from that edge, its inner depth as a page
    share), blocks being runs of lines from an edge inward split where more white than the body's sets them apart."""
    apart = frame.leading + frame.h
    out: dict[int, tuple[int, int, float]] = {}
    n = len(rows)
    for from_top in (True, False):
        order = list(range(n)) if from_top else list(range(n - 1, -1, -1))
        block: list[int] = []
        index = 0
        for pos, k in enumerate(order):
            block.append(k)
            nxt = order[pos + 1] if pos + 1 < n else None
            gap = math.inf
            if nxt is not None:
                gap = _top(rows[nxt]) - _bottom(rows[k]) if from_top else _top(rows[k]) - _bottom(rows[nxt])
            if gap > apart:
                inner = _bottom(rows[block[-1]]) if from_top else frame.height - _top(rows[block[-1]])
                for j in block:
                    if j not in out or (from_top and _top(rows[j]) < frame.height - _bottom(rows[j])):
                        out[j] = (len(block), index, inner / frame.height)
                index += 1
                block = []
                if index >= 4:
                    break
    return out


# Lines this near the top or bottom (page height shares), or this near the first or last line, are judged.
REACH_SHARE = 0.25
REACH_ROWS = 1


def is_candidate(x: Sequence[float]) -> bool:
    """Whether a line (its feature vector) is near enough an edge to be judged at all; the rest is body."""
    return min(x[0], x[1]) < REACH_SHARE or x[3] <= REACH_ROWS


def row_features(rows: Sequence[Row], frame: PageFrame, repeated: Iterable[str] = ()) -> list[list[float]]:
    """One feature vector (in FEATURES' order) for every row, rows given top to bottom."""
    repeated = set(repeated)
    blocks = _blocks(rows, frame)
    h, span = frame.h, max(frame.text_right - frame.text_left, 1e-6)
    n = len(rows)
    out = []
    for k, row in enumerate(rows):
        top, bottom = _top(row), _bottom(row)
        x0, x1 = min(b.x0 for b in row), max(b.x1 for b in row)
        from_top, from_bottom = top / frame.height, (frame.height - bottom) / frame.height
        nearer_top = from_top <= from_bottom
        above = (top - _bottom(rows[k - 1])) / h if k > 0 else FAR
        below = (_top(rows[k + 1]) - bottom) / h if k + 1 < n else FAR
        gap_in, gap_out = (below, above) if nearer_top else (above, below)
        inner = (rows[k + 1] if k + 1 < n else None) if nearer_top else (rows[k - 1] if k > 0 else None)
        text = line_text(row)
        chars = [c for c in text if not c.isspace()]
        letters = [c for c in chars if c.isalpha()]
        gaps = [b.x0 - a.x1 for a, b in zip(row, row[1:], strict=False)]
        sig = ("t:" if from_top < 0.5 else "b:") + signature(text)
        size, index, depth = blocks.get(k, (0, 9, 1.0))
        out.append([
            from_top, from_bottom, float(nearer_top), float(min(k, n - 1 - k, 9)), float(min(k if nearer_top else
            n - 1 - k, 9)),
            min(gap_in, FAR), min(gap_out, FAR), min(gap_in - frame.leading / h, FAR), frame.leading / h,
            max(b.height for b in row) / h, min(b.height for b in row) / h,
            max(b.height for b in inner) / h if inner else 0.0,
            (x1 - x0) / span, (x0 - frame.text_left) / span, (frame.text_right - x1) / span,
            abs((x0 + x1) / 2 - (frame.text_left + frame.text_right) / 2) / span,
            (x0 - frame.left) / frame.width, (frame.left + frame.width - x1) / frame.width,
            float(min(len(row), 10)), min(max(gaps, default=0.0) / h, FAR),
            float(inner is not None and abs(min(b.x0 for b in inner) - x0) < 0.5 * h),
            math.log1p(len(chars)), float(min(len(_WORD.findall(text)), 30)),
            len(letters) / max(len(chars), 1), sum(c.isdigit() for c in chars) / max(len(chars), 1),
            sum(c.isupper() for c in letters) / max(len(letters), 1), float(bool(_SENTENCE.search(text))),
            float(is_page_number(text)), float(_clear_numbers(row, h, 1.0) > 0), float(bool(EDGE_NUMBER.search(text))),
            float(bool(BAND_MARK.search(text))), float(bool(NOTICE.search(text))), float("=" in text),
            float(sig in repeated),
            float(size), float(index), depth,
            math.log1p(n), h / frame.height, span / frame.width,
        ])  # fmt: skip
    return out
