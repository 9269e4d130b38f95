"""Raster text the layer lacks: glyph-sized pieces of ink chained on a line, outside the layer's boxes."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ocr_pipeline.routing.ink import InkParams, ink_cover


def _page(text_lines: int, box_lines: int) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """A white page with `text_lines` lines of drawn text; the first `box_lines` of them are in the layer's boxes."""
    image = Image.new("L", (900, 1200), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=20)
    boxes = []
    for k in range(text_lines):
        y = 60 + 30 * k
        draw.text((60, y), "The committee met on Tuesday to review the budget", fill=0, font=font)
        if k < box_lines:
            boxes.append((58.0, y - 2.0, 620.0, y + 26.0))
    return np.asarray(image), boxes


def test_text_the_layer_holds_is_covered_and_pasted_text_is_found() -> None:
    pixels, boxes = _page(10, 10)
    covered = ink_cover(pixels, boxes, 24.0)
    assert covered.ink_pixels > 0 and covered.uncovered_pixels == 0 and covered.raster_text_lines == 0
    pixels, boxes = _page(10, 4)
    pasted = ink_cover(pixels, boxes, 24.0)
    assert pasted.raster_text_lines == 6 and pasted.uncovered_pixels > 0


def test_a_picture_without_text_has_no_raster_lines() -> None:
    image = Image.new("L", (900, 1200), 255)
    draw = ImageDraw.Draw(image)
    draw.rectangle((100, 100, 600, 500), fill=90)  # a photo's dark block
    draw.ellipse((200, 600, 500, 900), outline=0, width=6)  # a drawn circle
    draw.line((100, 1000, 800, 1000), fill=0, width=3)  # a rule
    found = ink_cover(np.asarray(image), [], 24.0)
    assert found.uncovered_pixels > 0 and found.raster_text_lines == 0


def test_ink_parameters_are_passed_in() -> None:
    pixels, boxes = _page(10, 4)
    assert ink_cover(pixels, boxes, 24.0, InkParams(min_line_glyphs=200)).raster_text_lines == 0
