"""The glyphs a page's layout gets, bounded: no more than a page can hold, and only those on the page.

Both are the input's to choose. A content stream may place its text a million points off the page (a broken text
matrix: a govdocs1 report's running heads sit 10^8 points to the right), where no reader sees it; poppler's
pdftotext drops such characters, and so does this. Boxes partly off the page are cut at its edges, so every
extent the layout measures (gutter bins, column widths) is the page's at most. And a page may hold millions of
characters: the repairs of glyphs.read_glyphs cost a dozen pdfium calls a character, so past TextLayerParams'
max_repaired_glyphs the characters are read with their loose boxes only (no fonts, sizes or scripts), and past its
max_page_chars not at all.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ocr_pipeline.layout.boxes import Box, Rule
from ocr_pipeline.layout.budget import LayoutBudget
from ocr_pipeline.textlayer.glyphs import Glyph, read_glyphs
from ocr_pipeline.textlayer.small_caps import small_caps_objects
from ocr_pipeline.textlayer.textlayer_params import TEXT_LAYER_PARAMS, TextLayerParams


def page_glyphs(
    textpage: pdfium.PdfTextPage,
    page: pdfium.PdfPage,
    budget: LayoutBudget,
    params: TextLayerParams = TEXT_LAYER_PARAMS,
) -> list[Glyph]:
    """The page's glyphs in user space: repaired (glyphs.read_glyphs) up to max_repaired_glyphs characters, else
    plain, and none past max_page_chars."""
    n = textpage.count_chars()
    if n <= params.max_repaired_glyphs:
        return read_glyphs(textpage, small_caps_objects(page), params)
    budget.note(f"{n} characters (bound {params.max_repaired_glyphs}): read without glyph repairs")
    if n > params.max_page_chars:
        budget.note(f"characters past the first {params.max_page_chars} left out")
    return plain_glyphs(textpage, min(n, params.max_page_chars))


def plain_glyphs(textpage: pdfium.PdfTextPage, count: int) -> list[Glyph]:
    """The first `count` characters with pdfium's loose boxes and nothing else ("\\n" glyphs at line ends)."""
    text = textpage.get_text_range(0, count)
    # get_text_range drops unmapped codes: then its string no longer lines up with the indices (see read_glyphs).
    chars = text if len(text) == count else [chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, k)) for k in range(count)]
    rect = pdfium_c.FS_RECTF()
    ref, loose_box = ctypes.byref(rect), pdfium_c.FPDFText_GetLooseCharBox
    glyphs: list[Glyph] = []
    for k, ch in enumerate(chars):
        if ch in "\r\n":
            if glyphs and glyphs[-1].text != "\n":
                glyphs.append(Glyph("\n", None))
            continue
        if ch.isspace() or not ch.isprintable() or not loose_box(textpage.raw, k, ref):
            glyphs.append(Glyph(" " if ch.isspace() else ch, None))
            continue
        box = (rect.left, rect.bottom, rect.right, rect.top)
        glyphs.append(Glyph(ch, box))  # no size: split_runs marks no scripts and no drop capitals
    return glyphs


def _clip(box: tuple[float, float, float, float], width: float, height: float) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = box
    return max(x0, 0.0), max(y0, 0.0), min(x1, width), min(y1, height)


def _outside(box: tuple[float, float, float, float], width: float, height: float) -> bool:
    """Whether a box (any y direction) lies wholly off the page; NaN coordinates count as off it."""
    x0, y0, x1, y1 = box
    return not (x1 >= 0.0 and y1 >= 0.0 and x0 <= width and y0 <= height)


def glyphs_on_page(glyphs: list[Glyph], width: float, height: float, budget: LayoutBudget) -> list[Glyph]:
    """Glyphs on the shown page (y up): those wholly off it dropped, the rest cut at its edges."""
    out: list[Glyph] = []
    dropped = cut = 0
    for g in glyphs:
        box = g.box
        if box is None or (box[0] >= 0.0 and box[1] >= 0.0 and box[2] <= width and box[3] <= height):
            out.append(g)  # the common case, kept as it is
        elif _outside(box, width, height):
            dropped += 1
        else:
            cut += 1
            out.append(replace(g, box=_clip(box, width, height)))
    if dropped:
        budget.note(f"{dropped} characters outside the page left out")
    if cut:
        budget.note(f"{cut} characters cut at the page's edge")
    return out


# Boxes and ruling lines are cut alike: each is a frozen rectangle whose other fields (a box's text) are kept.
OnPage = TypeVar("OnPage", Box, Rule)


def on_page(items: Sequence[OnPage], width: float, height: float) -> list[OnPage]:
    """Boxes or ruling lines (y down) on a page `width` by `height`: those wholly off it dropped, the rest cut at its
    edges."""
    out = []
    for b in items:
        if b.x0 >= 0.0 and b.y0 >= 0.0 and b.x1 <= width and b.y1 <= height:
            out.append(b)
        elif not _outside((b.x0, b.y0, b.x1, b.y1), width, height):
            x0, y0, x1, y1 = _clip((b.x0, b.y0, b.x1, b.y1), width, height)
            out.append(replace(b, x0=x0, y0=y0, x1=x1, y1=y1))
    return out
