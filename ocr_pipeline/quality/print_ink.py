"""Text without print: how much text a page image can hold, from how much of its ink looks like print.

A model shown a near-blank scan (the back of a sheet with the front's text showing through, a few specks of dust,
a stamp) sometimes answers with a page of fluent invented text: olmOCR's tracker shows a blank scan whose faint
bleed-through came back as a page of "The Art of War". Counting ink alone lets that pass once the bleed-through is
dark enough. Print differs from bleed-through in two ways a few array operations see: it is dark against its
paper, or where it is faint (a letter in brown ink that faded) its strokes still have sharp edges, while
bleed-through is both light and blurred by the paper it soaked through. A pixel counts as print when it is far
from the background, or moderately far and on a sharp edge. Two bounds on the letters such print can hold, each
set at twice what the real pages need, and the page's capacity is the smaller: one letter per PIXELS_PER_LETTER
print pixels (thin faded handwriting needs the fewest pixels per letter), and LETTERS_PER_TILE letters per tile of
the page that holds print (dense small print fits the most letters into a tile; a bold stamp or a speck of dust
fills few tiles). An answer with far more letters than that was not read from the page.

The thresholds were measured on pages rendered at 1288 pixels on the long side (the default); pixel counts and
the tile are scaled to the image's size.
"""

from __future__ import annotations

import io
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from PIL import Image

# Grey levels from the background (the median grey) past which a pixel is ink: the blank-page shortcut's count.
INK_CONTRAST = 48
# Grey levels from the background past which a pixel is print whatever its edges: dark ink, a stamp, soft but dark
# strokes of a low-resolution scan. Bleed-through blurred by the paper rarely reaches it (its strokes lose depth).
PRINT_DARK = 96
# A fainter pixel is print when it is at least PRINT_FAINT from the background and differs from a neighbour by at
# least PRINT_EDGE grey levels: a faded but sharp pen stroke. Paper grain (a few levels) and bleed-through
# blurred over 1.5 pixels or more (gradients under 20) stay below it.
PRINT_FAINT = 32
PRINT_EDGE = 24
# Print pixels per letter an honest page needs at least: the real scan with the least print per letter (a faded
# 1862 letter in brown ink, old_scans 39) has 10.2, printed pages 15 and more (bench_quality_guards); 5 leaves a
# factor 2 below the faintest.
PIXELS_PER_LETTER = 5
# Tiles of TILE x TILE pixels holding at least TILE_PRINT print pixels hold print. The real scan with the most
# letters per such tile (a dense 1890s journal page, old_scans 70) has 14.3, born-digital pages under 10; 28 leaves
# a factor 2.
TILE = 32
TILE_PRINT = 16
LETTERS_PER_TILE = 28
# The long side the thresholds were measured at (the default render size).
REFERENCE_SIDE = 1288
# Letters allowed on a page without print: a page number, a mark read as a letter.
LETTER_SLACK = 20
# What an answer writes that the page does not print: HTML tags, LaTeX commands, image links with their alt text.
_NOT_PRINTED = re.compile(r"<[^<>]{1,200}>|\\[A-Za-z]+|!\[[^\]]{0,2000}\]\([^)]{0,500}\)")


@dataclass(frozen=True)
class PageInk:
    """How much of a rendered page differs from its paper, and how much of that looks like print."""

    ink_pixels: int  # pixels more than INK_CONTRAST grey levels from the background (the blank-page shortcut's)
    print_pixels: int  # pixels that look like print (dark, or faint with a sharp edge)
    print_tiles: int  # tiles holding at least TILE_PRINT such pixels
    scale: float = 1.0  # the image's long side over REFERENCE_SIDE

    @property
    def capacity(self) -> int:
        """Letters the page's print can hold, at most."""
        by_pixels = self.print_pixels / (PIXELS_PER_LETTER * self.scale * self.scale)
        return int(min(by_pixels, self.print_tiles * LETTERS_PER_TILE))


# Pages measured lately, by the size and hash of their PNG: the stage measures a page for the blank check and the VLM
# engine the same image again to judge an answer (or the other way round when pages stream); the second looks it up.
MEASURED_MEMO = 512
_measured: OrderedDict[tuple[int, int], PageInk] = OrderedDict()
_memo_lock = threading.Lock()


def page_ink(png: bytes) -> PageInk:
    """Measure a rendered page (PNG bytes) in grey levels; a page measured lately is not decoded again."""
    key = (len(png), hash(png))
    with _memo_lock:
        known = _measured.get(key)
    if known is not None:
        return known
    with Image.open(io.BytesIO(png)) as image:
        grey = np.asarray(image.convert("L"), dtype=np.uint8)
    ink = grey_ink(grey)
    with _memo_lock:
        _measured[key] = ink
        while len(_measured) > MEASURED_MEMO:
            _measured.popitem(last=False)
    return ink


def forget_measured() -> None:
    """Drop the memo of measured pages (benchmarks time a fresh measure)."""
    with _memo_lock:
        _measured.clear()


def grey_ink(grey: np.ndarray) -> PageInk:
    """Measure an 8-bit grey image: its ink, and the part of it that looks like print."""
    hist = np.bincount(grey.ravel(), minlength=256)
    background = _median(hist, grey.size)
    ink = int(hist[np.abs(np.arange(256) - background) > INK_CONTRAST].sum())
    return mask_ink(_print_pixels(grey, hist, background), max(grey.shape) / REFERENCE_SIDE, ink)


def print_mask(grey: np.ndarray) -> np.ndarray:
    """Where an 8-bit grey image looks like print: the pixels `grey_ink` counts as print."""
    hist = np.bincount(grey.ravel(), minlength=256)
    return _print_pixels(grey, hist, _median(hist, grey.size))


def mask_ink(printed: np.ndarray, scale: float, ink_pixels: int = 0) -> PageInk:
    """The print measure of a mask of print pixels (`print_mask`, or what is left of it), at `scale`."""
    return PageInk(ink_pixels, int(np.count_nonzero(printed)), _tiles(printed, scale), scale)


def _print_pixels(grey: np.ndarray, hist: np.ndarray, background: int) -> np.ndarray:
    """Pixels far from the background, or moderately far and on a sharp edge (`hist` is the image's histogram)."""
    printed = _outside(grey, background, PRINT_DARK)
    distance = np.abs(np.arange(256) - background)
    if hist[(distance >= PRINT_FAINT) & (distance < PRINT_DARK)].any():
        sharp = np.zeros(grey.shape, dtype=bool)
        across = _steps(grey[:, 1:], grey[:, :-1])
        sharp[:, 1:] |= across
        sharp[:, :-1] |= across
        down = _steps(grey[1:, :], grey[:-1, :])
        sharp[1:, :] |= down
        sharp[:-1, :] |= down
        printed |= sharp & _outside(grey, background, PRINT_FAINT)
    return printed


def _tiles(printed: np.ndarray, scale: float) -> int:
    """Tiles of the page (TILE pixels at the reference size) holding at least TILE_PRINT print pixels."""
    side = max(1, round(TILE * scale))
    rows, cols = printed.shape[0] // side, printed.shape[1] // side
    if not rows or not cols:
        return 0
    counts = printed[: rows * side, : cols * side].reshape(rows, side, cols, side).sum(axis=(1, 3))
    return int(np.count_nonzero(counts >= TILE_PRINT * scale * scale))


def _outside(grey: np.ndarray, background: int, levels: int) -> np.ndarray:
    """Where the image is at least `levels` grey levels from the background, darker or lighter."""
    mask = grey <= background - levels if background >= levels else np.zeros(grey.shape, dtype=bool)
    if background + levels <= 255:
        mask |= grey >= background + levels
    return mask


def _steps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where neighbouring pixels differ by at least PRINT_EDGE grey levels (uint8, without overflow)."""
    return (np.maximum(a, b) - np.minimum(a, b)) >= PRINT_EDGE


def _median(hist: np.ndarray, size: int) -> int:
    """The image's median grey from its histogram, as int(np.median(grey)) gives it."""
    cumulative = np.cumsum(hist)
    low = int(np.searchsorted(cumulative, (size + 1) // 2))
    high = int(np.searchsorted(cumulative, size // 2 + 1))
    return (low + high) // 2


def answer_letters(text: str) -> int:
    """Letters and digits an answer transcribes: markup, LaTeX commands and image descriptions left out."""
    return sum(1 for c in _NOT_PRINTED.sub(" ", text) if c.isalnum())


def invented_text(text: str, capacity: int | None) -> str | None:
    """Why the answer holds far more text than the page's print ("1,310 letters, print for about 40"); None if not.

    `capacity` is the page's (`PageInk.capacity`); without one (a page with a text layer is not measured) nothing
    is judged.
    """
    if capacity is None:
        return None
    letters = answer_letters(text)
    if letters <= LETTER_SLACK + capacity:
        return None
    return f"{letters:,} letters, print for about {capacity:,}"
