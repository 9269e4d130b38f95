"""Lines the reader kept at the top or bottom of a page: where its furniture decisions are least sure.

A running head, a page number or a form's code that the furniture rules took for body text sits at the page's very
edge, or alone near it: one short line, well apart from the rest. The measure keeps every such candidate with its
position, its distance to the nearest other line and its width, so decide.py judges them with its own parameters.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

# Lines within this share of the page's height from its top or bottom edge are candidates (RouteParams' zones lie
# inside it), and only the first and last few lines of the page: a short line in the middle of the body is no head.
OUTER_ZONE = 0.2
END_LINES = 3


@dataclass(frozen=True)
class LineBox:
    """One kept line of the page's text: its extent in points (y down) and its words."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str


def edge_candidates(lines: Sequence[LineBox], page_height: float) -> list[dict[str, float | str]]:
    """The kept lines near the top or bottom edge, each as {text, y (its centre's share of the page height), gap (line
    heights to the nearest other line), width (its share of the median line's width)}."""
    lines = [line for line in lines if line.text.strip() and line.y1 > line.y0]
    if not lines or page_height <= 0:
        return []
    ordered = sorted(lines, key=lambda line: (line.y0 + line.y1) / 2)
    height = statistics.median(line.y1 - line.y0 for line in ordered)
    width = statistics.median(line.x1 - line.x0 for line in ordered) or 1.0
    ends = {id(line) for line in ordered[:END_LINES] + ordered[-END_LINES:]}
    out: list[dict[str, float | str]] = []
    for line in ordered:
        centre = (line.y0 + line.y1) / 2 / page_height
        if id(line) not in ends or OUTER_ZONE <= centre <= 1 - OUTER_ZONE:
            continue
        gaps = [max(other.y0 - line.y1, line.y0 - other.y1) for other in ordered if other is not line]
        gap = min(gaps) / height if gaps else 1e6
        out.append({"text": line.text.strip()[:80], "y": round(centre, 4), "gap": round(gap, 2),
                    "width": round((line.x1 - line.x0) / width, 3)})  # fmt: skip
    return out
