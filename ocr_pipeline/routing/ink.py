"""Whether a page's text layer covers its ink: raster text outside the layer's glyphs, counted on the rendered page.

A pasted scan under born-digital text, a digital line stamped on a scanned body, a figure or logo whose words are
pixels: each is ink the layer's glyph boxes do not cover, shaped like text. The page's ink (pixels far enough from
its paper) outside the glyph boxes and ruling lines is split into connected pieces; pieces of a glyph's size chained
side by side on one baseline, four or more, are a line of raster text. A photo, a rule or a shaded box gives few
such chains. Pure numpy and OpenCV over the pixels the renderer drew anyway.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ocr_pipeline.layout.param_fields import check_values, doc_field


@dataclass(frozen=True)
class InkParams:
    """How raster text is told apart on a rendered page (sizes in pixels scale with the body's line height)."""

    ink_contrast: int = doc_field(48, "grey levels from the paper: a pixel past this is ink (the blank check's)")
    pad_px: int = doc_field(2, "pixels: glyph boxes grow this much each way, so anti-aliased edges stay covered")
    glyph_heights: tuple[float, float] = doc_field((0.25, 1.5), "line heights: a raster glyph's height lies within")
    glyph_aspect: float = doc_field(2.5, "own heights: a raster glyph is at most this wide")
    min_glyph_pixels: int = doc_field(4, "pixels: a smaller piece is a speck")
    same_line_heights: float = doc_field(0.4, "line heights: pieces of one line have centres this close")
    max_gap_heights: float = doc_field(1.2, "line heights: ... and gaps at most this wide")
    min_line_glyphs: int = doc_field(4, "pieces: a raster text line holds at least this many")
    max_pieces: int = doc_field(5000, "pieces: past this many the page is a photo or dense figure, not searched")

    def __post_init__(self) -> None:
        check_values(self, positive=("glyph_aspect", "same_line_heights", "min_line_glyphs", "max_pieces"))


INK_PARAMS = InkParams()


@dataclass(frozen=True)
class InkCover:
    """How much of the page's ink the text layer's boxes cover, and how many raster text lines lie outside them."""

    ink_pixels: int
    uncovered_pixels: int
    raster_text_lines: int


def ink_cover(
    pixels: np.ndarray,
    boxes: Sequence[tuple[float, float, float, float]],
    line_height_px: float,
    params: InkParams = INK_PARAMS,
) -> InkCover:
    """The ink of an RGB or grey page image outside `boxes` (pixel corners x0, y0, x1, y1), and its raster lines
    (pieces past `params.max_pieces` count as that many lines: a photo, not searched)."""
    # Imported here to save start-up time: only pages read for routing need OpenCV.
    import cv2

    grey = _grey(pixels)
    hist = np.bincount(grey.ravel(), minlength=256)
    paper = int(np.searchsorted(np.cumsum(hist), (grey.size + 1) // 2))  # the median grey, from the histogram
    far = np.abs(np.arange(256) - paper) > params.ink_contrast
    ink = far[grey].astype(np.uint8)
    covered = np.zeros_like(ink)
    height, width = ink.shape
    for x0, y0, x1, y1 in boxes:
        top, bottom = max(0, int(y0) - params.pad_px), min(height, int(np.ceil(y1)) + params.pad_px)
        left, right = max(0, int(x0) - params.pad_px), min(width, int(np.ceil(x1)) + params.pad_px)
        covered[top:bottom, left:right] = 1
    outside = ink & (1 - covered)
    count, _, stats, _ = cv2.connectedComponentsWithStats(outside, connectivity=8)
    low, high = (share * line_height_px for share in params.glyph_heights)
    glyphs = [
        (int(x), int(y), int(x + w), int(y + h))
        for x, y, w, h, area in stats[1:]
        if low <= h <= high and w <= params.glyph_aspect * h and area >= params.min_glyph_pixels
    ]
    too_many = len(glyphs) > params.max_pieces
    lines = params.max_pieces if too_many else len(_chains(glyphs, line_height_px, params))
    return InkCover(int(ink.sum()), int(outside.sum()), lines)


def _grey(pixels: np.ndarray) -> np.ndarray:
    """8-bit grey of RGB (the channels' mean) or grey pixels, in integers: a page is a million of them."""
    if pixels.ndim == 2:
        return pixels.astype(np.uint8)
    total = pixels[..., 0].astype(np.uint16) + pixels[..., 1] + pixels[..., 2]
    return (total // 3).astype(np.uint8)


def _chains(
    glyphs: list[tuple[int, int, int, int]], height: float, params: InkParams
) -> list[list[tuple[int, int, int, int]]]:
    """Glyph-sized pieces chained left to right on one line, `params.min_line_glyphs` or more."""
    glyphs = sorted(glyphs)
    used = [False] * len(glyphs)
    chains = []
    for i, first in enumerate(glyphs):
        if used[i]:
            continue
        used[i], chain, last = True, [first], first
        for j in range(i + 1, len(glyphs)):
            piece = glyphs[j]
            if piece[0] - last[2] > params.max_gap_heights * height:
                break  # sorted by their left edge: every later piece lies farther still
            if not used[j] and abs((piece[1] + piece[3]) - (last[1] + last[3])) / 2 < params.same_line_heights * height:
                used[j], last = True, piece
                chain.append(piece)
        if len(chain) >= params.min_line_glyphs:
            chains.append(chain)
    return chains
