"""Near-blank scans the tests build: the back of a sheet with the front showing through (light or dark, blurred,
mirrored), specks of dust, a stamp; and faint but honest print beside them.

Each is a grey (or colour) image at the size the pipeline renders an A4 page (910 x 1288), on paper with grain,
and `scan_pdf` wraps one as an image-only PDF that renders back at the same size. `BACKS` holds the backs whose
bleed-through is as dark as faint print (`faint_print` at the same depths is their honest counterpart): only its
being mirrored tells it from print.
"""

from __future__ import annotations

import io
from collections.abc import Callable

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
# A front page of different sentences (FRONT_WORDS repeated reads as a loop to the answer checks): the text of
# `faint_print` and of the bleed-through in NEAR_BLANK, 24 lines at 11 pt.
FRONT_PAGE = (
    "The board of the county hospital met on the first Monday of the month and heard the report of the matron on "
    "the state of the wards. She asked for six new beds in the children's ward, where the winter had brought more "
    "cases of croup than in any year she could remember. The treasurer answered that the coal bill alone had risen "
    "by a third since the autumn, and that the subscriptions promised at the summer fete were still unpaid. A "
    "letter from the rector offered the proceeds of the harvest supper, which the board accepted with thanks. Dr "
    "Ellis reported that the new boiler in the laundry had failed twice in January, flooding the passage below "
    "the dispensary and spoiling a delivery of bandages. The contractor had promised to replace the valve at his "
    "own cost but had not yet sent a man to do it. It was resolved that the secretary should write to him again "
    "and, failing an answer within a fortnight, engage the firm at Castle Street instead. The chairman then read "
    "a note from Mrs Whitby, who wished to endow a bed in memory of her late husband, a surgeon of this hospital "
    "for thirty years. The board agreed to place a brass plate above it and to name it the Whitby bed. Under other "
    "business the porter's wages were raised by two shillings a week, the kitchen garden was let to Mr Amos for a "
    "further year, and the question of a telephone was deferred until the spring meeting, when the estimates from "
    "the exchange would be to hand. The meeting closed at a quarter past nine with a vote of thanks to the matron."
)


def _paper(seed: int, grey: float = PAPER) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(grey, GRAIN, size=(1288, 910))


def _front_ink(text: str | None = None) -> np.ndarray:
    """The front of the sheet as ink strength 0-1: a page of 11 pt text (FRONT_WORDS 14 times unless `text`)."""
    lines = [FRONT_WORDS * 14 if text is None else text]
    image = pdfgen.render_image(pdfgen.text_pdf([lines], font_size=11), dpi=DPI).resize((910, 1288))
    return 1.0 - np.asarray(image, dtype=np.float64) / 255.0


def _grey(values: np.ndarray) -> Image.Image:
    return Image.fromarray(np.clip(np.rint(values), 0, 255).astype(np.uint8), mode="L")


def bleed_through(
    depth: float,
    blur: float = 2.0,
    *,
    mirrored: bool = True,
    seed: int = 1,
    text: str | None = None,
    paper: float = PAPER,
) -> Image.Image:
    """The back of a sheet: the front's text `depth` grey levels dark at most, mirrored, blurred by the paper.

    `text` is the front's (FRONT_WORDS 14 times unless given), `paper` the sheet's grey.
    """
    ink = Image.fromarray(np.rint(_front_ink(text) * 255).astype(np.uint8), mode="L")
    if mirrored:
        ink = ink.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    soaked = np.asarray(ink.filter(ImageFilter.GaussianBlur(blur)), dtype=np.float64) / 255.0
    return _grey(_paper(seed, paper) - depth * soaked)


def specks(count: int = 40, *, seed: int = 2) -> Image.Image:
    """An empty sheet with `count` specks of dust, 1-3 pixels across."""
    rng = np.random.default_rng(seed)
    page = _paper(seed)
    for _ in range(count):
        y, x, r = int(rng.integers(20, 1268)), int(rng.integers(20, 890)), int(rng.integers(1, 3))
        page[y - r : y + r, x - r : x + r] = rng.integers(30, 90)
    return _grey(page)


def faint_print(depth: float, *, seed: int = 3, paper: float = PAPER) -> Image.Image:
    """Honest print that faded: FRONT_PAGE itself, sharp, only `depth` grey levels darker than the paper."""
    return _grey(_paper(seed, paper) - depth * _front_ink(FRONT_PAGE))


def stamp(
    *,
    seed: int = 4,
    lines: tuple[str, ...] = ("RECEIVED", "MAR 12 1911"),
    bottom: float = 730,
    size: float = 1.0,
) -> Image.Image:
    """An empty sheet with a red office stamp at its right: a framed word and a date, the frame's foot `bottom` pt
    above the page's (730: its top right corner), `size` times the usual 170 x 64 pt."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.setLineWidth(2.5 * size)
    c.rect(550 - 170 * size, bottom, 170 * size, 64 * size)
    c.setFont("Helvetica-Bold", 20 * size)
    for i, line in enumerate(lines):
        c.drawCentredString(550 - 85 * size, bottom + (42 - 26 * i) * size, line)
    c.showPage()
    c.save()
    mask = 1.0 - np.asarray(pdfgen.render_image(buf.getvalue(), dpi=DPI).resize((910, 1288)), np.float64) / 255
    paper = _paper(seed)[..., None] * np.array([1.0, 0.985, 0.94])
    inked = paper * (1 - mask[..., None]) + np.array(STAMP_RED) * mask[..., None]
    return Image.fromarray(np.clip(np.rint(inked), 0, 255).astype(np.uint8), mode="RGB")


def _back(depth: float, blur: float, paper: float = PAPER) -> Image.Image:
    """FRONT_PAGE showing through the back of the sheet, mirrored."""
    return bleed_through(depth, blur, seed=5, text=FRONT_PAGE, paper=paper)


# The backs of sheets whose bleed-through is as dark as faint print, by name: each built when asked.
BACKS: dict[str, Callable[[], Image.Image]] = {
    "mirrored, sharp": lambda: _back(150, 0.8),
    "mirrored, sharp and dark": lambda: _back(210, 0.6),
    "mirrored, blurred": lambda: _back(180, 1.5),
    "grey on grey": lambda: _back(90, 0.6, paper=170),
    "bleed-through and specks": lambda: darkest(_back(150, 1.0), specks(60)),
    # A smaller stamp at the foot, below the bleed-through: the usual one's own print holds more letters (about
    # 1,100 by the print measure) than the invented page has.
    "bleed-through and a stamp": lambda: darkest(_back(150, 1.0), stamp(bottom=90, size=0.7)),
}


def near_blank_back(name: str) -> Image.Image:
    """One of BACKS: the back of a sheet whose bleed-through (FRONT_PAGE, mirrored) is as dark as faint print."""
    return BACKS[name]()


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
