"""Synthetic page images for tests and benchmarks: distinct per page, with an orientation marker."""

from __future__ import annotations

import hashlib
import io

from PIL import Image, ImageDraw

from ocr_pipeline.pdf.render import render_pdf_page
from ocr_pipeline.records import PageInput
from tests.support.builders.near_blank import scan_pdf

# The marker is a black square in the upright page's top-left corner, large enough to survive the
# 16x16 thumbnail the test server looks at (one thumbnail cell of a 1288 px page is ~80 px).
MARKER_FRACTION = 0.16
_CORRECTIONS = {
    90: Image.Transpose.ROTATE_90,
    180: Image.Transpose.ROTATE_180,
    270: Image.Transpose.ROTATE_270,
}


def draw_page(
    seed: int,
    *,
    longest: int = 1288,
    landscape: bool = False,
    marker: bool = True,
    turned: int = 0,
    lines: int = 30,
    compress_level: int = 1,
) -> bytes:
    """A PNG page (longest side `longest`) unique to `seed`, optionally turned by PIL's ROTATE_<turned>."""
    short = round(longest / 1.414)
    size = (longest, short) if landscape else (short, longest)
    img = Image.new("L", size, 255)
    draw = ImageDraw.Draw(img)
    w, h = size
    if marker:
        m = int(min(w, h) * MARKER_FRACTION)
        draw.rectangle([0, 0, m, m], fill=0)
    # A block whose grey level and height depend on the seed keeps every page's pixel histogram distinct.
    grey = 40 + seed % 150
    draw.rectangle([w // 3, h // 2, w // 3 + 60 + seed % 97, h // 2 + 20 + (seed // 97) % 89], fill=grey)
    for i in range(lines):
        y = int(h * 0.25) + i * 22
        if y > h - 30:
            break
        draw.text((w // 8, y), f"Page {seed} line {i}: the quick brown fox jumps over the lazy dog.", fill=30)
    if turned % 360:
        img = img.transpose(_CORRECTIONS[turned % 360])
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=compress_level)
    return out.getvalue()


def page_input(seed: int, *, text_layer: str = "", turned: int = 0, **kwargs: object) -> PageInput:
    """A PageInput wrapping draw_page(seed); source_hash and page_num derive from the seed."""
    png = draw_page(seed, turned=turned, **kwargs)  # type: ignore[arg-type]  # draw_page's own keywords, passed through
    with Image.open(io.BytesIO(png)) as img:
        width, height = img.size
    source = hashlib.sha1(f"doc-{seed // 1000}".encode()).hexdigest()
    return PageInput(source, seed % 1000 + 1, png, width, height, text_layer=text_layer)


def marker_correction(img: Image.Image) -> int | None:
    """The olmOCR rotation_correction that brings the marker to the top-left; None when there is no marker."""
    thumb = img.convert("L").resize((16, 16), Image.Resampling.BOX)
    for correction in (0, 90, 180, 270):
        t = thumb if correction == 0 else thumb.transpose(_CORRECTIONS[correction])
        corners = [t.getpixel(p) for p in ((0, 0), (15, 0), (0, 15), (15, 15))]
        if corners[0] < 80 and min(corners[1:]) > 160:
            return correction
    return None


def rendered_scan(image: Image.Image) -> bytes:
    """A built page image as the pipeline stores it: in a scanned PDF, rendered back at 1288 px."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(scan_pdf(image))
    try:
        return render_pdf_page(doc, 0).png
    finally:
        doc.close()
