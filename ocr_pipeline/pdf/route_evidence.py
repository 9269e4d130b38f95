"""A page's routing evidence (routing/evidence.py), gathered while its row is read: no model, no second render.

What the page already yields: the reader's trust verdict on its layout text and the characters no font maps; the
words of a language (function words, routing/function_words.py); text drawn invisibly and the share of the page
under images (pdfium's objects); raster text outside the layer's glyph boxes (the pixels the renderer drew,
routing/ink.py); the tables and formulas the reader wrote, the lines it kept at the page's edges (routing/edges.py)
and the layout bounds that fired.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections.abc import Sequence

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ocr_pipeline.layout.boxes import Box, Rule
from ocr_pipeline.layout.page_reader import PageRead
from ocr_pipeline.quality.language_detector import best_language
from ocr_pipeline.routing.edges import LineBox, edge_candidates
from ocr_pipeline.routing.evidence import RouteEvidence
from ocr_pipeline.routing.function_words import function_word_share
from ocr_pipeline.routing.ink import INK_PARAMS, InkParams, ink_cover
from ocr_pipeline.textlayer.reader import PageLayout, TextLayerQuality

# Formulas as the reader writes them (textlayer/math/latex.py): inline `$...$` and display `$$...$$`.
_LATEX = re.compile(r"\$\$[^$\n]+\$\$|\$(?!\s)[^$\n]*(?<!\s)\$")
_CID = re.compile(r"\(cid:\d+\)")
# Text objects a page is searched for invisible ones: a page of more is judged on its first ones.
MAX_TEXT_OBJECTS = 20_000
# Mathematical symbols that prose uses too: they alone make no formula.
_PROSE_SYMBOLS = set("+<=>|~¬±×÷")


def invisible_chars(page: pdfium.PdfPage) -> int:
    """Characters of the page's text objects drawn in render mode 3 (invisible): a scanner's OCR layer, typically."""
    count = 0
    textpage = None
    try:
        for index, obj in enumerate(page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_TEXT], max_depth=3)):
            if index >= MAX_TEXT_OBJECTS:
                break
            if pdfium_c.FPDFTextObj_GetTextRenderMode(obj.raw) != pdfium_c.FPDF_TEXTRENDERMODE_INVISIBLE:
                continue
            textpage = textpage or page.get_textpage()
            # pdfium counts UTF-16 code units, with a terminator; an object it cannot measure counts as one.
            size = pdfium_c.FPDFTextObj_GetText(obj.raw, textpage.raw, None, 0)
            count += max(1, size // 2 - 1)
    finally:
        if textpage is not None:
            textpage.close()
    return count


def math_symbols(text: str) -> int:
    """Mathematical symbols and Greek letters outside the formulas the reader converted: maths left as glyphs."""
    rest = _LATEX.sub(" ", text)
    return sum(
        1 for c in rest if (unicodedata.category(c) == "Sm" and c not in _PROSE_SYMBOLS) or "\u0370" <= c <= "\u03ff"
    )


def gather_evidence(
    invisible: int,
    text: str,
    verdict: TextLayerQuality,
    image_share: float,
    lines: Sequence[LineBox],
    page_size: tuple[float, float],
    glyph_boxes: Sequence[Box | Rule],
    pixels: np.ndarray | None,
    notes: Sequence[str] = (),
    ink: InkParams = INK_PARAMS,
) -> RouteEvidence:
    """One page's evidence: `invisible` its invisible characters (invisible_chars), `text` the layout text it stores,
    `verdict` the trust verdict on it, `lines` the kept
    lines of its reading, `glyph_boxes` its runs and rules in points on the shown page (`page_size`), `pixels` the
    rendered page (None: not drawn, or read turned against it, which is noted and sends the page to the model)."""
    width, height = page_size
    bad = sum(1 for c in text if c == "\ufffd" or unicodedata.category(c) in ("Cc", "Co", "Cs") and c not in "\n\t")
    language = best_language(text)
    words = function_word_share(text, language[0] if language else None)
    notes = list(notes)
    covered = None
    if pixels is None:
        notes.append("no page image to check the layer's ink against")
    else:
        scale = pixels.shape[1] / max(width, 1e-6)
        boxes = [(b.x0 * scale, b.y0 * scale, b.x1 * scale, b.y1 * scale) for b in glyph_boxes]
        heights = [line.y1 - line.y0 for line in lines if line.y1 > line.y0]
        covered = ink_cover(pixels, boxes, (statistics.median(heights) if heights else 10.0) * scale, ink)
    return RouteEvidence(
        trusted=verdict.trusted,
        trust_reason=verdict.reason,
        bad_chars=bad + len(_CID.findall(text)),
        words=words.words,
        language=words.language,
        function_word_share=round(words.share, 4),
        invisible_chars=invisible,
        image_share=round(image_share, 4),
        ink_pixels=covered.ink_pixels if covered else 0,
        uncovered_ink_pixels=covered.uncovered_pixels if covered else 0,
        raster_text_lines=covered.raster_text_lines if covered else 0,
        tables=text.count("<table>"),
        formulas=len(_LATEX.findall(text)) + (1 if math_symbols(text) > 2 else 0),
        edge_lines=edge_candidates(lines, height),
        layout_notes=notes,
    )


def reading_evidence(
    layout: PageLayout,
    read: PageRead,
    text: str,
    verdict: TextLayerQuality,
    image_share: float,
    invisible: int,
    pixels: np.ndarray | None,
    notes: Sequence[str],
) -> RouteEvidence:
    """gather_evidence over a page's layout and reading (page_rows' ROUTE rows); the runs are compared with the pixels
    only where they were placed in the frame the page was drawn in."""
    lines = [LineBox(b.x0, b.y0, b.x1, b.y1, b.text) for b in read.lines]
    drawn = pixels if layout.shown_frame else None
    boxes: list[Box | Rule] = [*layout.runs, *layout.rules]
    return gather_evidence(invisible, text, verdict, image_share, lines, (layout.width, layout.height), boxes, drawn,
                           notes)  # fmt: skip
