"""Tables and scans for the olmOCR-format bench PDFs (page helpers in olmo_pages.py)."""

from __future__ import annotations

import io
import random
from typing import Any

from PIL import Image, ImageFilter
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from tests.support.builders.layout_pdfs import drawn_page
from tests.support.builders.olmo_pages import BODY, LEADING, VOCAB, Page, sentence
from tests.support.builders.pdfgen import invisible_text, page_image_pdf, render_image

H = A4[1]


def _grid(rng: random.Random, rows: int, cols: int) -> list[list[str]]:
    head = ["Region"] + [f"{rng.choice(VOCAB).title()} {k}" for k in range(1, cols)]
    body = [
        [f"{rng.choice(VOCAB).title()} {rng.choice(VOCAB)}"] + [f"{rng.uniform(1, 999):.1f}" for _ in range(cols - 1)]
        for _ in range(rows - 1)
    ]
    return [head] + body


def draw_tables(c: canvas.Canvas, rng: random.Random, style: str, count: int, wide: bool) -> tuple[Page, list[Any]]:
    """Paragraphs with `count` tables between them; each table's cell grid is returned for the tests."""
    p = Page(c, rng)
    p.furniture(None, p.page_number, None)
    grids = []
    p.fill(paragraphs=1)
    for _ in range(count):
        grid = _grid(rng, rng.randint(4, 7), 7 if wide else rng.randint(3, 5))
        widths = [max(stringWidth(r[k], "Helvetica", 9) for r in grid) + 14 for k in range(len(grid[0]))]
        x0, row_h = p.margin, 15.0
        y = p.y - 6
        edges = [x0]
        for w in widths:
            edges.append(edges[-1] + w)
        c.setFont("Helvetica", 9)
        for r, row in enumerate(grid):
            for k, cell in enumerate(row):
                if k == 0:
                    c.drawString(edges[k] + 5, y - 11, cell)
                else:
                    c.drawRightString(edges[k + 1] - 5, y - 11, cell)
            if style == "grid" or (style == "booktabs" and r in (0, 1)):
                c.setLineWidth(0.8 if r == 0 else 0.4)
                c.line(edges[0], y, edges[-1], y)
            y -= row_h
        if style in ("grid", "booktabs"):
            c.line(edges[0], y, edges[-1], y)
        if style == "grid":
            for e in edges:
                c.line(e, p.y - 6, e, y)
        p.y = y - 18
        grids.append(grid)
        p.fill(paragraphs=1)
    p.fill(paragraphs=2)
    return p, grids


def scanner_image(pdf: bytes) -> Image.Image:
    """The first page of `pdf` as a 150 dpi greyscale scan, slightly blurred as a scanner's optics blur it."""
    return render_image(pdf, 0, 150).filter(ImageFilter.GaussianBlur(0.6))


def make_scan(rng: random.Random, hidden: str | None) -> tuple[bytes, list[str]]:
    """A 150 dpi scan of a text page; `hidden` adds an invisible text layer, 'good', 'poor' (letters garbled)
    or 'wrong' (every third word replaced by another real word)."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    p = Page(c, rng)
    p.fill(paragraphs=8)
    c.save()
    image = scanner_image(buf.getvalue())
    if not hidden:
        return page_image_pdf(image), p.lines
    swap = str.maketrans("EeaolrtS", "Kcoc1tfB") if hidden == "poor" else {}
    layer = [line.translate(swap) for line in p.lines]
    if hidden == "wrong":  # real words in the wrong places: no letter statistic of the layer flags them
        layer = [
            " ".join(w if i % 3 else rng.choice(["market", "silver", "winter"]) for i, w in enumerate(line.split()))
            for line in p.lines
        ]
    return page_image_pdf(image, lambda c: invisible_text(c, layer, p.margin, H - 72 - BODY, BODY, LEADING)), p.lines


def rasterise(pdf: bytes) -> bytes:
    """A 150 dpi greyscale scan of a one-page PDF (slightly blurred, as a scanner would), with no text layer."""
    return page_image_pdf(scanner_image(pdf))


def draw_footnotes(self: Page, n: int) -> None:
    """`n` small numbered footnotes under a short rule at the bottom of the body."""
    y = self.bottom + 12 + n * 10
    self.c.line(self.margin, y + 8, self.margin + 120, y + 8)
    self.c.setFont("Helvetica", 7.5)
    for i in range(n):
        note = f"{i + 1} {sentence(self.rng)}"
        self.c.drawString(self.margin, y - i * 10, note)
        self.notes.append(note)


def draw_formulas(self: Page) -> None:
    """Lines with superscripts and subscripts drawn as raised or lowered smaller text."""
    for base, sup, sub, tail in (
        ("e", "i\u03c0", "", " + 1 = 0"),
        ("x", "2", "n", " + y = z"),
        ("a", "2", "", " + b^2 = c^2"),
        ("H", "", "2", "O is water"),
    ):
        x, y = self.margin, self.y - BODY
        self.c.setFont("Helvetica", 12)
        self.c.drawString(x, y, base)
        x += stringWidth(base, "Helvetica", 12)
        self.c.setFont("Helvetica", 8)
        if sup:
            self.c.drawString(x, y + 5, sup)
        if sub:
            self.c.drawString(x, y - 3, sub)
        x += max(stringWidth(sup, "Helvetica", 8), stringWidth(sub, "Helvetica", 8))
        self.c.setFont("Helvetica", 12)
        self.c.drawString(x + 1, y, tail.replace("^2", "\u00b2"))
        self.y -= LEADING * 2
        sup_t = f"^{{{sup}}}" if sup else ""
        sub_t = f"_{{{sub}}}" if sub else ""
        self.formula_texts.append(f"{base}{sub_t}{sup_t}")


NOTES_HEAD = "Proceedings of the Rural Society"


def footnote_page(rng: random.Random) -> tuple[bytes, Page]:
    """A one-page PDF of body text and three footnotes above a page number, under a running head; and its Page."""

    def draw(c: canvas.Canvas) -> Page:
        p = Page(c, rng)
        p.furniture(NOTES_HEAD, p.page_number, None)
        p.fill(paragraphs=6)
        draw_footnotes(p, 3)
        return p

    return drawn_page(draw)
