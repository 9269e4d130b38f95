"""From PDF user space to the page as shown: the visible box's corner as origin, the page's /Rotate applied.

pdfium gives character boxes, path bounds and widget rectangles in user space, whose origin is wherever the
document put it: a CropBox of [0 90 612 882] (a scanned journal page, a page cut out of a larger sheet) starts 90
points up, and a page with /Rotate 90 is drawn turned a quarter clockwise. Reading order, furniture and table rules
compare positions with the page's edges and with each other, so they work in the coordinates a reader sees: the
rendered image's, y up here as in PDF (glyphs.split_runs turns it downwards).

A page whose text is set sideways on the shown page (a landscape table printed across a portrait sheet, a page
scanned turned) is read in the frame its text reads across in: a reader turns the page, and so does the OCR engine.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

import pypdfium2 as pdfium

from ocr_pipeline.textlayer.glyphs import Glyph


@dataclass(frozen=True)
class PageSpace:
    """The page's visible box (user space) and its rotation, and the map from user space onto the shown page."""

    left: float
    bottom: float
    right: float
    top: float
    rotation: int = 0  # /Rotate, clockwise, a multiple of 90

    @classmethod
    def of(cls, page: pdfium.PdfPage) -> PageSpace:
        """The space of a loaded page: its CropBox within its MediaBox (what pdfium draws) and its /Rotate."""
        left, bottom, right, top = page.get_bbox()
        return cls(min(left, right), min(bottom, top), max(left, right), max(bottom, top), page.get_rotation() % 360)

    @property
    def turned(self) -> bool:
        """Whether the page is shown a quarter turn round (its width and height swap)."""
        return self.rotation in (90, 270)

    @property
    def width(self) -> float:
        """Width of the shown page in points."""
        return self.top - self.bottom if self.turned else self.right - self.left

    @property
    def height(self) -> float:
        """Height of the shown page in points."""
        return self.right - self.left if self.turned else self.top - self.bottom

    def point(self, x: float, y: float) -> tuple[float, float]:
        """A user-space point on the shown page (origin bottom-left, y up)."""
        if self.rotation == 90:
            return y - self.bottom, self.right - x
        if self.rotation == 180:
            return self.right - x, self.top - y
        if self.rotation == 270:
            return self.top - y, x - self.left
        return x - self.left, y - self.bottom

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        """A user-space rectangle on the shown page, as (left, bottom, right, top)."""
        ax, ay = self.point(x0, y0)
        bx, by = self.point(x1, y1)
        return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)

    @property
    def identity(self) -> bool:
        """True when user space already is the shown page's space (the common case: nothing to map)."""
        return self.rotation == 0 and self.left == 0 and self.bottom == 0


def reading_frame(space: PageSpace, glyphs: list[Glyph]) -> PageSpace:
    """The shown page, or, when most of its characters run up or down it, the page turned so that they read across."""
    turns = Counter(g.turn for g in glyphs if g.box is not None)
    shown = (space.rotation // 90) % 4
    if not turns or turns[shown] * 2 >= sum(turns.values()):
        return space
    # Turning the page clockwise by the text's anticlockwise angle sets the text upright.
    return replace(space, rotation=turns.most_common(1)[0][0] * 90)


def place(glyphs: list[Glyph], space: PageSpace) -> list[Glyph]:
    """The glyphs with their boxes on the page as `space` shows it; text running up or down it is marked vertical."""
    if space.identity:
        return glyphs
    out = []
    for g in glyphs:
        if g.box is None:
            out.append(g)
            continue
        vertical = (g.turn * 90 - space.rotation) % 180 == 90
        out.append(replace(g, box=space.box(*g.box), vertical=vertical))
    return out
