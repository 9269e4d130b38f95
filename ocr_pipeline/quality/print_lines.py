"""Lines of print found from the print mask alone: where the mirrored-print check reads a page.

A text detector finds lines better but costs 0.6-1.1 s a page; rows of print do for this. The page is cut into
vertical strips (a skewed line stays within a few pixels of its row across one; columns side by side fall apart);
in each, the rows that hold a fair share of the strip's print form bands, and each band's run of print columns
(words joined across their gaps) is a line. A line owns the rows around it up to halfway to the next, so lines
never overlap and leaving a line's print out removes its ascenders and descenders too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ocr_pipeline.quality.mirror_params import MirrorParams

# The strip's "busiest rows": the row counts' 90th percentile, over rows holding any print.
_BUSY_PERCENTILE = 90
# Gaps a band's rows may have (a thin stroke's row just under the share) and still be one line.
_ROW_GAP = 1
# Words of one line are joined across gaps up to this many line heights.
_WORD_GAP = 1.5


@dataclass(frozen=True)
class LinePart:
    """A line's part within one strip: the rows and columns it owns, its band's rows, its print pixels."""

    top: int  # the rows it owns, [top, bottom)
    bottom: int
    left: int  # its columns, [left, right)
    right: int
    band_top: int  # the rows of its band (where most of its print lies), [band_top, band_bottom)
    band_bottom: int
    pixels: int  # print pixels in the rows and columns it owns

    @property
    def height(self) -> int:
        """The band's height in pixels."""
        return self.band_bottom - self.band_top


@dataclass(frozen=True)
class PrintLine:
    """A line of print: its parts in neighbouring strips, joined where the line runs on across a strip's edge."""

    parts: tuple[LinePart, ...]

    @property
    def pixels(self) -> int:
        """Print pixels in the rows and columns the line owns."""
        return sum(part.pixels for part in self.parts)


def print_lines(mask: np.ndarray, params: MirrorParams, scale: float = 1.0) -> list[PrintLine]:
    """Lines of print in a print mask (print_ink.print_mask), the most print first; at most params.max_lines."""
    width = mask.shape[1]
    side = max(1, round(params.strip_width * scale))
    edges = list(range(0, width, side)) + [width]
    if len(edges) > 2 and edges[-1] - edges[-2] < side // 2:
        del edges[-2]  # a narrow last strip joins the one before it
    chains: list[list[LinePart]] = []
    open_ends: list[list[LinePart]] = []  # chains reaching the right edge of the strip before
    for left, right in zip(edges, edges[1:], strict=False):
        reaching = []
        for part in _strip_lines(mask[:, left:right], left, params, scale):
            gap = _WORD_GAP * part.height
            chain = next((c for c in open_ends if part.left - left <= gap and _same_band(c[-1], part)), None)
            if chain is None:
                chain = []
                chains.append(chain)
            else:
                open_ends.remove(chain)  # one part joins a chain
            chain.append(part)
            if right - part.right <= gap:
                reaching.append(chain)
        open_ends = reaching
    lines = [PrintLine(tuple(chain)) for chain in chains]
    lines.sort(key=lambda line: (-line.pixels, line.parts[0].top, line.parts[0].left))
    return lines[: params.max_lines]


def _same_band(a: LinePart, b: LinePart) -> bool:
    """Whether two parts' bands overlap by at least half the lower one's height: one line across a strip edge."""
    overlap = min(a.band_bottom, b.band_bottom) - max(a.band_top, b.band_top)
    return overlap * 2 >= min(a.height, b.height)


def _strip_lines(strip: np.ndarray, offset: int, params: MirrorParams, scale: float) -> list[LinePart]:
    """The lines of one vertical strip of the mask, their columns shifted by `offset`."""
    rules = strip.mean(axis=0) > params.rule_share
    counted = strip[:, ~rules] if rules.any() else strip
    rows = counted.sum(axis=1)
    busy = rows[rows > 0]
    if not busy.size:
        return []
    threshold = max(2.0, params.row_share * float(np.percentile(busy, _BUSY_PERCENTILE)))
    bands = [
        (top, bottom)
        for top, bottom in _runs(rows >= threshold, _ROW_GAP)
        if params.min_height * scale <= bottom - top <= params.max_height * scale
    ]
    lines = []
    for i, (top, bottom) in enumerate(bands):
        # A line owns the rows up to halfway to its neighbours' bands, and at most half its height beyond its own.
        reach = (bottom - top) // 2
        above = bands[i - 1][1] if i else 0
        below = bands[i + 1][0] if i + 1 < len(bands) else strip.shape[0]
        own_top = max(top - reach, (above + top + 1) // 2)
        own_bottom = min(bottom + reach, (bottom + below) // 2)
        columns = strip[top:bottom].any(axis=0) & ~rules
        for left, right in _runs(columns, max(1, round(_WORD_GAP * (bottom - top)))):
            if right - left < params.min_width * (bottom - top):
                continue
            pixels = int(np.count_nonzero(strip[own_top:own_bottom, left:right]))
            lines.append(LinePart(own_top, own_bottom, left + offset, right + offset, top, bottom, pixels))
    return lines


def _runs(flags: np.ndarray, gap: int) -> list[tuple[int, int]]:
    """[start, end) of the runs of True in `flags`, joined across gaps of at most `gap` False values."""
    on = np.flatnonzero(flags)
    if not on.size:
        return []
    breaks = np.flatnonzero(np.diff(on) > gap + 1)
    starts = np.concatenate(([on[0]], on[breaks + 1]))
    ends = np.concatenate((on[breaks], [on[-1]])) + 1
    return [(int(a), int(b)) for a, b in zip(starts, ends, strict=True)]


def line_window(line: PrintLine, shape: tuple[int, ...], params: MirrorParams) -> tuple[int, int, int, int]:
    """The part of the image the recogniser reads for a line: its band with a margin, at most crop_ratio wide.

    (top, bottom, left, right), centred on the line's widest part: a line's middle is its most typical stretch (its
    start may be an indent or a drop capital, its end a short word).
    """
    part = max(line.parts, key=lambda p: p.right - p.left)
    pad = max(2, part.height // 4)
    top, bottom = max(0, part.band_top - pad), min(shape[0], part.band_bottom + pad)
    width = min(part.right - part.left, int(params.crop_ratio * (bottom - top)))
    left = (part.left + part.right - width) // 2
    return top, bottom, left, left + width
