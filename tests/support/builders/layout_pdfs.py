"""Small PDFs with page layout the text layer must read: tables, page furniture, accents, display text, drop caps."""

from __future__ import annotations

import io
import textwrap
from collections.abc import Callable, Sequence
from typing import TypeVar

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from tests.support.builders.pdfgen import SENTENCES, invisible_text, page_image_pdf, render_image

W, H = A4
T = TypeVar("T")
TABLE = [
    ["Region", "Wheat", "Barley", "Oats"],
    ["North", "12.5", "7.25", "3.1"],
    ["South", "14.0", "6.50", "2.8"],
    ["East", "9.75", "8.00", "4.4"],
    ["West", "11.2", "5.75", "3.9"],
]


def pdf_of_pages(pages: Sequence[Callable[[canvas.Canvas], None]]) -> bytes:
    """An A4 PDF with one page per drawing function."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    for draw in pages:
        draw(c)
        c.showPage()
    c.save()
    return buf.getvalue()


def drawn_page(draw: Callable[[canvas.Canvas], T]) -> tuple[bytes, T]:
    """A one-page A4 PDF drawn by `draw`, and what `draw` returned (what it drew, which the tests are made from)."""
    kept: list[T] = []
    pdf = pdf_of_pages([lambda c: kept.append(draw(c))])
    return pdf, kept[0]


def _lines(c: canvas.Canvas, lines: Sequence[str], y: float, size: float = 11, leading: float = 14) -> float:
    c.setFont("Helvetica", size)
    for line in lines:
        c.drawString(72, y, line)
        y -= leading
    return y


def _draw_table(
    c: canvas.Canvas, rows: Sequence[Sequence[str]], style: str, edges: list[float], top: float, pad: float
) -> float:
    """Draw `rows` between column `edges` from `top` down, with the rules of `style`; returns the bottom y."""
    y = top
    for r, row in enumerate(rows):
        if style == "grid" or (style == "booktabs" and r < 2):
            c.line(edges[0], y, edges[-1], y)
        for k, cell in enumerate(row):
            c.drawString(edges[k] + pad, y - 12, cell)
        y -= 16
    if style != "plain":
        c.line(edges[0], y, edges[-1], y)
    if style == "grid":
        for x in edges:
            c.line(x, top, x, y)
    return y


def table_pdf(style: str, rows: Sequence[Sequence[str]] = TABLE) -> bytes:
    """A paragraph, a table ('grid': all rules, 'booktabs': horizontal rules, 'plain': none), a paragraph."""

    def draw(c: canvas.Canvas) -> None:
        y = _lines(c, SENTENCES[:2], H - 72)
        edges = [72.0 + 80 * k for k in range(len(rows[0]) + 1)]
        c.setFont("Helvetica", 10)
        y = _draw_table(c, rows, style, edges, y - 10, 6)
        _lines(c, SENTENCES[2:4], y - 24)

    return pdf_of_pages([draw])


def side_by_side_pdf(style: str, rows: Sequence[Sequence[str]] = TABLE) -> bytes:
    """A narrow column of prose on the left and, beside it at the same height, a table ('grid', 'booktabs', 'plain')."""

    def draw(c: canvas.Canvas) -> None:
        c.setFont("Helvetica", 10)
        y = H - 72
        for line in textwrap.wrap(" ".join(SENTENCES[:3]), 42):
            c.drawString(50, y, line)
            y -= 13
        edges = [310.0 + 58 * k for k in range(len(rows[0]) + 1)]
        _draw_table(c, rows, style, edges, H - 66, 5)

    return pdf_of_pages([draw])


def furniture_pdf(pages: int = 3, head: str = "Journal of Rural Studies", body_lines: int = 48) -> bytes:
    """Pages of body text under a running head and over a page number; the body runs into the bottom band."""

    def page(n: int) -> Callable[[canvas.Canvas], None]:
        def draw(c: canvas.Canvas) -> None:
            c.setFont("Helvetica", 8)
            c.drawString(72, H - 36, head)
            c.drawCentredString(W / 2, 28, str(40 + n))
            lines = [f"{SENTENCES[(n + k) % 8]}" for k in range(body_lines)]
            # 48 lines at 15 pt from 72 pt below the top: the last lines sit inside the bottom tenth of the page.
            _lines(c, lines, H - 72, size=11, leading=15)

        return draw

    return pdf_of_pages([page(n) for n in range(pages)])


BOOK_TITLE = "A HISTORY OF THE RIVER VALLEY"
BOOK_CHAPTER = "CHAPTER 3. SETTLEMENT AND TRADE"
BOOK_FOOTER = "Proceedings of the Rural Society, Vol. 12 (2026)"
BOOK_FIRST_PAGE = 57


def book_body(n: int, lines: int = 44) -> list[str]:
    """The body lines of page `n` (0-based) of book_pdf: a section heading two lines in, then sentences."""
    body = [SENTENCES[(n + k) % 8] for k in range(lines)]
    body[2] = f"3.{n + 1} Field notes from season {n + 1}"
    return body


def book_pdf(pages: int = 6, lines: int = 44) -> bytes:
    """A chapter of a book as printed: a chapter opening (title, no running head, number at the foot), then verso
    and recto pages whose running heads carry the page number at the outer edge (the book's title on the left, the
    chapter's on the right), set one leading above the body in body-sized capitals, and a journal footer on recto
    pages. `book_body(n)` gives each page's body lines: only those may be read."""

    def page(n: int) -> Callable[[canvas.Canvas], None]:
        number = BOOK_FIRST_PAGE + n

        def draw(c: canvas.Canvas) -> None:
            top = H - 72
            if n == 0:
                c.setFont("Helvetica-Bold", 20)
                c.drawString(72, H - 160, "Settlement and Trade")
                c.setFont("Helvetica", 9)
                c.drawCentredString(W / 2, 40, str(number))
                top = H - 200
            else:
                c.setFont("Helvetica", 10)
                if number % 2 == 0:
                    c.drawString(72, H - 56, str(number))
                    c.drawString(110, H - 56, BOOK_TITLE)
                else:
                    c.drawRightString(W - 72, H - 56, str(number))
                    c.drawRightString(W - 110, H - 56, BOOK_CHAPTER)
                    c.setFont("Helvetica", 8)
                    c.drawCentredString(W / 2, 30, BOOK_FOOTER)
            _lines(c, book_body(n, lines)[: lines if n else lines - 9], top, size=11, leading=15)

        return draw

    return pdf_of_pages([page(n) for n in range(pages)])


def stamp_pdf() -> bytes:
    """Body text with a vertical 'Downloaded from' stamp in the left margin."""

    def draw(c: canvas.Canvas) -> None:
        _lines(c, SENTENCES, H - 90)
        c.saveState()
        c.setFont("Helvetica", 7)
        c.translate(26, 200)
        c.rotate(90)
        c.drawString(0, 0, "Downloaded from https://example.org by guest on 28 December 2018")
        c.restoreState()

    return pdf_of_pages([draw])


def repairs_pdf() -> bytes:
    """A spacing accent over a letter, a display heading drawn word by word, ‘‘quotes’’ and a drop capital."""

    def draw(c: canvas.Canvas) -> None:
        c.setFont("Helvetica", 11)
        x = 72
        for ch in "Ibanez":
            c.drawString(x, H - 80, ch)
            if ch == "a":
                c.drawString(
                    x + (stringWidth("a", "Helvetica", 11) - stringWidth("\u00b4", "Helvetica", 11)) / 2,
                    H - 80,
                    "\u00b4",
                )
            x += stringWidth(ch, "Helvetica", 11)
        c.setFont("Helvetica-Bold", 30)
        x = 72
        for word in ("THE", "POWER", "OF", "STORIES"):
            c.drawString(x, H - 140, word)
            x += stringWidth(word, "Helvetica-Bold", 30) + 9
        c.setFont("Helvetica", 11)
        c.drawString(72, H - 180, "He said \u2018\u2018good morning\u2019\u2019 to all.")
        c.setFont("Times-Bold", 44)
        c.drawString(72, H - 262, "W")
        indent = 72 + stringWidth("W", "Times-Bold", 44) + 4
        c.setFont("Helvetica", 11)
        for k, line in enumerate(["ind blew across the open field", "and the barley bent low", "before the rain"]):
            c.drawString(indent, H - 228 - 14 * k, line)
        c.drawString(72, H - 270, "came down on the village that evening.")

    return pdf_of_pages([draw])


# Plausible words a poor OCR layer puts in place of the right ones: real English, so no letter statistic flags them.
WRONG_WORDS = ["water", "house", "market", "silver", "garden", "letter", "winter", "number", "county", "bridge"]


def hidden_layer_scan_pdf(paragraphs: Sequence[str], wrong_every: int = 0, dpi: int = 150) -> bytes:
    """A scan of `paragraphs` under an invisible text layer; `wrong_every` > 0 replaces every n-th word in it."""
    lines = [line for para in paragraphs for line in textwrap.wrap(para, 80)]

    def page(c: canvas.Canvas) -> None:
        _lines(c, lines, H - 72, size=11, leading=16)

    image = render_image(pdf_of_pages([page]), dpi=dpi)
    k = 0

    def garble(line: str) -> str:
        nonlocal k
        out = []
        for word in line.split():
            k += 1
            out.append(WRONG_WORDS[k % len(WRONG_WORDS)] if wrong_every and k % wrong_every == 0 else word)
        return " ".join(out)

    def layer(c: canvas.Canvas) -> None:
        invisible_text(c, [garble(line) for line in lines], 72, H - 72, 11, 16)

    return page_image_pdf(image, layer)
