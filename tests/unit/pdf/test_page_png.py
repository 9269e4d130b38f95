"""Rendered pages to PNG: what any reader decodes is exactly the pixels pdfium drew, grey pages as one channel."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from ocr_pipeline.pdf.page_png import encode_png, is_grey, page_png
from ocr_pipeline.pdf.render import render_pdf_page, render_scale
from tests.support.builders import pdfgen


def _decoded(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (37, 11), (1, 200), (64, 64, 3), (1, 1, 3), (5, 300, 3)])
def test_any_image_decodes_to_its_own_pixels(shape: tuple[int, ...]) -> None:
    pixels = np.random.default_rng(len(shape) * 1000 + shape[0]).integers(0, 256, size=shape, dtype=np.uint8)
    image = _decoded(encode_png(pixels))
    assert image.mode == ("L" if len(shape) == 2 else "RGB")
    assert np.array_equal(np.asarray(image), pixels)


def test_views_with_strides_encode_the_pixels_they_show() -> None:
    base = np.random.default_rng(3).integers(0, 256, size=(40, 60, 4), dtype=np.uint8)
    for view in (base[:, :, :3], base[::2, 1::3, 1], base[:, :, 2]):
        assert np.array_equal(np.asarray(_decoded(encode_png(view))), view)


def test_only_grey_and_rgb_bytes_are_accepted() -> None:
    for bad in (np.zeros((4, 4), np.uint16), np.zeros((4, 4, 4), np.uint8), np.zeros((0, 4), np.uint8)):
        with pytest.raises(ValueError):
            encode_png(bad)


def test_a_grey_page_is_one_channel_that_reads_back_as_the_same_rgb() -> None:
    grey = np.random.default_rng(5).integers(0, 256, size=(50, 30), dtype=np.uint8)
    rgb = np.repeat(grey[:, :, None], 3, axis=2)
    assert is_grey(rgb)
    image = _decoded(page_png(rgb))
    assert image.mode == "L" and np.array_equal(np.asarray(image.convert("RGB")), rgb)
    rgb[10, 10, 2] ^= 1  # one pixel a shade off grey makes it a colour page, kept whole
    assert not is_grey(rgb)
    coloured = _decoded(page_png(rgb))
    assert coloured.mode == "RGB" and np.array_equal(np.asarray(coloured), rgb)


def _coloured_pdf(path: Path) -> Path:
    c = canvas.Canvas(str(path), pagesize=A4)
    c.drawString(72, 700, pdfgen.SENTENCES[0])
    c.setFillColorRGB(0.8, 0.1, 0.1)
    c.rect(72, 500, 200, 100, fill=1)
    c.showPage()
    c.save()
    return path


@pytest.mark.parametrize("kind", ["text", "coloured"])
def test_a_rendered_page_reads_back_as_pdfiums_own_pixels(tmp_path: Path, kind: str) -> None:
    if kind == "text":
        path = pdfgen.write(tmp_path / "p.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:4]]))
    else:
        path = _coloured_pdf(tmp_path / "p.pdf")
    doc = pdfium.PdfDocument(str(path))
    try:
        rendered = render_pdf_page(doc, 0, 600)
        page = doc[0]
        scale = render_scale(*page.get_size(), 600, 10**9)
        expected = page.render(scale=scale, may_draw_forms=True, rev_byteorder=True).to_pil().convert("RGB")
        page.close()
    finally:
        doc.close()
    image = _decoded(rendered.png)
    assert image.mode == ("L" if kind == "text" else "RGB")
    assert (rendered.width, rendered.height) == image.size == expected.size
    assert np.array_equal(np.asarray(image.convert("RGB")), np.asarray(expected))
