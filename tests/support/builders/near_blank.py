"""Near-blank scans the tests build: the back of a sheet with the front showing through (light or dark, blurred,
mirrored), specks of dust, a stamp; and faint but honest print beside them.

Each is a grey (or colour) image at the size the pipeline renders an A4 page (910 x 1288), on paper with grain,
and `scan_pdf` wraps one as an image-only PDF that renders back at the same size.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageFilter
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from tests.support.builders import pdfgen

# 1288 px over A4's 842 pt: the pipeline renders such a page back at one pixel per image pixel.
DPI = 110
PAPER = 236  # grey of old paper
GRAIN = 2.5  # its noise, in grey levels (standard deviation)
STAMP_RED = (176, 38, 42)
FRONT_WORDS = (
    "The board of the county hospital met on the first Monday of the month and heard the report of the matron "
    "on the state of the wards, the supply of linen and the cost of coal for the winter that was coming on. "
)


def _paper(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(PAPER, GRAIN, size=(1288, 910))


def _front_ink() -> np.ndarray:
    """The front of the sheet as ink strength 0-1: a page of 11 pt text, rendered at the pipeline's size."""
    lines = [FRONT_WORDS * 14]
    image = pdfgen.render_image(pdfgen.text_pdf([lines], font_size=11), dpi=DPI).resize((910, 1288))
    return 1.0 - np.asarray(image, dtype=np.float64) / 255.0


def _grey(values: np.ndarray) -> Image.Image:
    return Image.fromarray(np.clip(np.rint(values), 0, 255).astype(np.uint8), mode="L")


def bleed_through(depth: float, blur: float = 2.0, *, mirrored: bool = True, seed: int = 1) -> Image.Image:
    """The back of a sheet: the front's text `depth` grey levels dark at most, mirrored, blurred by the paper."""
    ink = Image.fromarray(np.rint(_front_ink() * 255).astype(np.uint8), mode="L")
    if mirrored:
        ink = ink.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    soaked = np.asarray(ink.filter(ImageFilter.GaussianBlur(blur)), dtype=np.float64) / 255.0
    return _grey(_paper(seed) - depth * soaked)


def specks(count: int = 40, *, seed: int = 2) -> Image.Image:
    """An empty sheet with `count` specks of dust, 1-3 pixels across."""
    rng = np.random.default_rng(seed)
    page = _paper(seed)
    for _ in range(count):
        y, x, r = int(rng.integers(20, 1268)), int(rng.integers(20, 890)), int(rng.integers(1, 3))
        page[y - r : y + r, x - r : x + r] = rng.integers(30, 90)
    return _grey(page)


def faint_print(depth: float, *, seed: int = 3) -> Image.Image:
    """Honest print that faded: the front's text itself, sharp, only `depth` grey levels darker than the paper."""
    return _grey(_paper(seed) - depth * _front_ink())


def stamp(*, seed: int = 4, lines: tuple[str, ...] = ("RECEIVED", "MAR 12 1911")) -> Image.Image:
    """An empty sheet with a red office stamp in its top right corner: a framed word and a date."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.setLineWidth(2.5)
    c.rect(380, 730, 170, 64)
    c.setFont("Helvetica-Bold", 20)
    for i, line in enumerate(lines):
        c.drawCentredString(465, 772 - 26 * i, line)
    c.showPage()
    c.save()
    mask = 1.0 - np.asarray(pdfgen.render_image(buf.getvalue(), dpi=DPI).resize((910, 1288)), np.float64) / 255
    paper = _paper(seed)[..., None] * np.array([1.0, 0.985, 0.94])
    inked = paper * (1 - mask[..., None]) + np.array(STAMP_RED) * mask[..., None]
    return Image.fromarray(np.clip(np.rint(inked), 0, 255).astype(np.uint8), mode="RGB")


def darkest(*images: Image.Image) -> Image.Image:
    """The images laid on one another, each pixel the darkest of them (grey): bleed-through and dust on one sheet."""
    return Image.fromarray(np.minimum.reduce([np.asarray(i.convert("L")) for i in images]), mode="L")


def scan_pdf(*images: Image.Image) -> bytes:
    """An image-only PDF of the images, one a page, that renders back at their size."""
    return pdfgen.images_pdf(list(images), dpi=DPI)


def png(image: Image.Image) -> bytes:
    """The image as PNG bytes, as the renderer stores a page."""
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
