"""Page rendering: PDF pages (pypdfium2) and page images (PIL) to PNGs of a bounded size."""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
from PIL import Image, ImageOps

from ocr_pipeline.pdf.crop_box import repair_crop_box
from ocr_pipeline.pdf.page_png import page_png
from ocr_pipeline.settings import DEFAULT_TARGET_LONGEST_IMAGE_DIM, MAX_PAGE_PIXELS

# zlib level 1 is ~3x faster than PIL's default 6 and only ~10% larger on rendered pages.
PNG_COMPRESS_LEVEL = 1
# EXIF orientation tag values that ImageOps.exif_transpose undoes, as clockwise degrees applied.
_EXIF_ROTATION = {1: 0, 2: 0, 3: 180, 4: 180, 5: 90, 6: 90, 7: 270, 8: 270}
_EXIF_ORIENTATION_TAG = 0x0112


@dataclass(frozen=True)
class RenderedPage:
    """One rendered page image: PNG bytes, pixel size, and the clockwise rotation applied."""

    png: bytes
    width: int
    height: int
    rotation: int = 0
    note: str | None = None
    # The RGB pixels the PNG holds (height x width x 3), kept only when the caller asked (render_pdf_page's
    # keep_pixels): page rows hand them to the layout model instead of drawing the page a second time.
    pixels: np.ndarray | None = None


def _to_png(img: Image.Image) -> bytes:
    """Encode a PIL image as PNG."""
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return buf.getvalue()


def render_scale(width_pt: float, height_pt: float, target_longest_dim: int, max_pixels: int) -> float:
    """Pixels per point giving a longest side of `target_longest_dim`, area at most `max_pixels`."""
    longest = max(width_pt, height_pt, 1e-6)
    scale = target_longest_dim / longest
    # Only reachable with a large target; checked from the page size so nothing big is ever rasterised.
    if width_pt * height_pt * scale * scale > max_pixels:
        scale = math.sqrt(max_pixels / max(width_pt * height_pt, 1e-6))
    # pypdfium2 sizes the bitmap with ceil(); float noise would otherwise give 1289 px instead of 1288.
    return scale * (1 - 1e-9)


def render_pdf_page(
    doc: pdfium.PdfDocument,
    page_index: int,
    target_longest_dim: int = DEFAULT_TARGET_LONGEST_IMAGE_DIM,
    max_pixels: int = MAX_PAGE_PIXELS,
    *,
    extra_rotation: int = 0,
    keep_pixels: bool = False,
) -> RenderedPage:
    """Render one page (0-based) honouring /Rotate and CropBox; `extra_rotation` adds clockwise turns;
    `keep_pixels` keeps a copy of the RGB pixels on the result."""
    if extra_rotation % 90:
        raise ValueError(f"extra_rotation must be a multiple of 90, got {extra_rotation}")
    page = doc[page_index]
    bitmap = None
    try:
        note = repair_crop_box(page, doc, page_index)
        # get_size() is the CropBox (else MediaBox) after /Rotate, exactly the area pdfium draws.
        width_pt, height_pt = page.get_size()
        scale = render_scale(width_pt, height_pt, target_longest_dim, max_pixels)
        extra = extra_rotation % 360
        # Filled-in form values are part of the page a reader sees; pdfium draws them only where the document's
        # form environment was initialised before the page was loaded (probe.open_pdf does).
        bitmap = page.render(scale=scale, rotation=extra, may_draw_forms=True, rev_byteorder=True)
        pixels = bitmap.to_numpy()  # a view of pdfium's buffer, RGB with rev_byteorder
        if pixels.ndim != 3 or pixels.shape[2] != 3:  # a bitmap of another layout: PIL knows its mode
            pixels = np.asarray(bitmap.to_pil().convert("RGB"))
        rotation = (page.get_rotation() + extra) % 360
        height, width = pixels.shape[:2]
        kept = np.array(pixels) if keep_pixels else None  # a copy: pdfium's buffer goes with the bitmap
        return RenderedPage(page_png(pixels), width, height, rotation, note, kept)
    finally:
        if bitmap is not None:
            bitmap.close()
        page.close()


def rotate_png(png: bytes, degrees_clockwise: int) -> RenderedPage:
    """Turn a rendered page clockwise by a multiple of 90 degrees (the VLM's rotation correction)."""
    if degrees_clockwise % 90:
        raise ValueError(f"rotation must be a multiple of 90, got {degrees_clockwise}")
    degrees = degrees_clockwise % 360
    with Image.open(io.BytesIO(png)) as img:
        img.load()
        # PIL's ROTATE_* turn counter-clockwise, so 90 clockwise is ROTATE_270.
        ops = {
            90: Image.Transpose.ROTATE_270,
            180: Image.Transpose.ROTATE_180,
            270: Image.Transpose.ROTATE_90,
        }
        out = img.transpose(ops[degrees]) if degrees else img.copy()
    return RenderedPage(png=_to_png(out), width=out.width, height=out.height, rotation=degrees)


def image_to_page(path: str | Path, target_longest_dim: int = DEFAULT_TARGET_LONGEST_IMAGE_DIM) -> RenderedPage:
    """A PNG/JPEG input as a page: EXIF orientation applied, RGB, scaled down to the target longest side."""
    with Image.open(path) as img:
        orientation = int(img.getexif().get(_EXIF_ORIENTATION_TAG, 1) or 1)
        # Let JPEG decode at a reduced scale: a 40 MP photo needs far less than full resolution.
        img.draft("RGB", (target_longest_dim, target_longest_dim))
        upright = ImageOps.exif_transpose(img)
        rgb = _flatten_to_rgb(upright)
    longest = max(rgb.size)
    if longest > target_longest_dim:
        ratio = target_longest_dim / longest
        size = (max(1, round(rgb.width * ratio)), max(1, round(rgb.height * ratio)))
        rgb = rgb.resize(size, Image.Resampling.LANCZOS)
    return RenderedPage(
        png=_to_png(rgb), width=rgb.width, height=rgb.height, rotation=_EXIF_ROTATION.get(orientation, 0)
    )


def _flatten_to_rgb(img: Image.Image) -> Image.Image:
    """RGB with any transparency composited onto white (a transparent background reads as white paper)."""
    if img.mode in ("RGBA", "LA") or (img.mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return img.convert("RGB") if img.mode != "RGB" else img.copy()
