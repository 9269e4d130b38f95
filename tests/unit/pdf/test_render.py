"""render_pdf_page / rotate_png / image_to_page on generated PDFs and images."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image
from pypdf import PdfReader, PdfWriter
from pypdf.generic import RectangleObject
from reportlab.pdfgen import canvas

from ocr_pipeline.pdf.render import image_to_page, render_pdf_page, render_scale, rotate_png
from ocr_pipeline.settings import MAX_PAGE_PIXELS
from tests.support.builders.pdfgen import SENTENCES, huge_page_pdf, scan_pdf, set_rotate, text_pdf


def _bar_pdf() -> bytes:
    """A 600x800 pt portrait page: a black bar across the top, a black square in the bottom-left corner."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(600, 800))
    c.rect(0, 750, 600, 50, fill=1, stroke=0)
    c.rect(0, 0, 300, 300, fill=1, stroke=0)
    c.showPage()
    c.save()
    return buf.getvalue()


def _render(pdf: bytes, **kwargs: int) -> tuple[Image.Image, int]:
    doc = pdfium.PdfDocument(pdf)
    try:
        page = render_pdf_page(doc, 0, **kwargs)
    finally:
        doc.close()
    img = Image.open(io.BytesIO(page.png)).convert("L")
    assert img.size == (page.width, page.height)
    return img, page.rotation


def _dark(img: Image.Image, box: tuple[float, float, float, float]) -> bool:
    """Whether the region (fractions of width/height) is mostly black."""
    w, h = img.size
    crop = img.crop((int(box[0] * w), int(box[1] * h), int(box[2] * w), int(box[3] * h)))
    return sum(crop.tobytes()) / (crop.width * crop.height) < 64


def test_portrait_longest_side_is_target() -> None:
    img, rotation = _render(_bar_pdf())
    assert img.size == (966, 1288) and rotation == 0
    assert _dark(img, (0.1, 0.0, 0.9, 0.05)) and not _dark(img, (0.1, 0.3, 0.9, 0.5))


def test_rotate_90_gives_landscape_with_top_on_the_right() -> None:
    img, rotation = _render(set_rotate(_bar_pdf(), 90))
    assert img.size == (1288, 966) and rotation == 90
    # /Rotate 90 turns the page clockwise: the top bar is now the right edge and the
    # bottom-left square the top-left corner.
    assert _dark(img, (0.95, 0.1, 1.0, 0.9)) and _dark(img, (0.02, 0.05, 0.35, 0.45))
    assert not _dark(img, (0.02, 0.6, 0.35, 0.95))


def test_text_pdf_rotate_is_landscape() -> None:
    img, rotation = _render(text_pdf([SENTENCES], rotate=270))
    assert img.width > img.height and rotation == 270


def test_cropbox_respected() -> None:
    reader, writer = PdfReader(io.BytesIO(_bar_pdf())), PdfWriter()
    page = reader.pages[0]
    # Keep only the bottom-left 300x400 pt: the black square fills the lower three quarters.
    page.cropbox = RectangleObject([0, 0, 300, 400])
    writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    img, _ = _render(out.getvalue())
    assert img.size == (966, 1288)
    assert _dark(img, (0.05, 0.3, 0.95, 0.95)) and not _dark(img, (0.05, 0.0, 0.95, 0.2))


def test_extra_rotation() -> None:
    img, rotation = _render(_bar_pdf(), extra_rotation=180)
    assert rotation == 180 and _dark(img, (0.1, 0.96, 0.9, 1.0))


def test_huge_page_is_capped_and_fast() -> None:
    start = time.perf_counter()
    img, _ = _render(huge_page_pdf(), target_longest_dim=4096)
    assert img.width * img.height <= MAX_PAGE_PIXELS
    img, _ = _render(huge_page_pdf(), target_longest_dim=1288)
    assert img.size == (1288, 1288)
    assert time.perf_counter() - start < 5


def test_render_scale_caps_extreme_aspect() -> None:
    scale = render_scale(100_000, 10, 4096, 1000)
    assert 100_000 * 10 * scale * scale <= 1000 * 1.0001


def test_scan_pdf_renders() -> None:
    img, _ = _render(scan_pdf(text_pdf([SENTENCES[:2]]), dpi=60))
    assert max(img.size) == 1288


def test_rotate_png() -> None:
    img = Image.new("L", (40, 20), 255)
    img.paste(0, (0, 0, 20, 20))  # left half black
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    turned = rotate_png(buf.getvalue(), 90)
    out = Image.open(io.BytesIO(turned.png)).convert("L")
    assert (turned.width, turned.height, turned.rotation) == (20, 40, 90)
    assert out.getpixel((10, 5)) < 50 and out.getpixel((10, 35)) > 200  # the left half went to the top
    assert rotate_png(buf.getvalue(), -90).rotation == 270
    with pytest.raises(ValueError):
        rotate_png(buf.getvalue(), 45)


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_image_exif_rotation(tmp_path: Path, fmt: str) -> None:
    img = Image.new("RGB", (2000, 1000), (255, 255, 255))
    img.paste((0, 0, 0), (0, 0, 1000, 1000))  # left half black
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 clockwise to display"
    path = tmp_path / f"photo.{fmt.lower()}"
    img.save(path, format=fmt, exif=exif)
    page = image_to_page(path, 1288)
    out = Image.open(io.BytesIO(page.png))
    assert out.mode == "RGB" and (page.width, page.height) == (644, 1288) and page.rotation == 90
    gray = out.convert("L")
    assert gray.getpixel((322, 100)) < 50 and gray.getpixel((322, 1200)) > 200


def test_image_small_not_upscaled_and_alpha_flattened(tmp_path: Path) -> None:
    img = Image.new("RGBA", (300, 200), (0, 0, 0, 0))
    page = image_to_page(_save(img, tmp_path / "t.png"), 1288)
    out = Image.open(io.BytesIO(page.png))
    assert out.size == (300, 200) and out.mode == "RGB" and out.getpixel((5, 5)) == (255, 255, 255)


def _save(img: Image.Image, path: Path) -> Path:
    img.save(path)
    return path
