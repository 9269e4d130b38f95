"""PDFs whose user space is not the shown page: a CropBox away from the origin, a landscape page set with /Rotate."""

from __future__ import annotations

import io

from reportlab.pdfgen import canvas

BODY = [
    "Reading order follows the page a reader sees, not the coordinates the file happens to use.",
    "A second line of the body, long enough to be prose and not a running head or a page number.",
    "The third line closes the paragraph on the same page with a few more ordinary words in it.",
]


def offset_crop_pdf(offset: float = 200.0) -> bytes:
    """A letter page cut from a taller sheet: MediaBox 612 x (792 + 2 * offset), CropBox raised by `offset`.

    A running head sits just under the crop box's top edge and a page number just over its bottom edge; the sheet
    outside the crop box holds text a reader never sees.
    """
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792 + 2 * offset))
    c.setCropBox((0, offset, 612, offset + 792))
    c.setFont("Helvetica", 9)
    c.drawString(72, offset + 792 - 30, "JOURNAL OF EXAMPLES  VOL. 12")
    c.drawString(300, offset + 24, "17")
    c.setFont("Helvetica", 11)
    for k, line in enumerate(BODY):
        c.drawString(72, offset + 600 - 16 * k, line)
    c.showPage()
    c.save()
    return buf.getvalue()


def rotated_landscape_pdf() -> bytes:
    """A portrait page shown as landscape (/Rotate 90) whose text is drawn turned, so that it reads across."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    c.setPageRotation(90)
    # After the turn, the shown page's x runs up user space's y and its y down runs along user space's x.
    c.translate(612, 0)
    c.rotate(90)
    c.setFont("Helvetica", 11)
    for k, line in enumerate(BODY):
        c.drawString(72, 500 - 16 * k, line)
    c.showPage()
    c.save()
    return buf.getvalue()


def sideways_pdf(rotate_page: int, turn_text: int) -> bytes:
    """The body set turned by `turn_text` degrees anticlockwise on a page shown with /Rotate `rotate_page`."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    if rotate_page:
        c.setPageRotation(rotate_page)
    c.translate(306, 396)
    c.rotate(turn_text)
    c.setFont("Helvetica", 11)
    for k, line in enumerate(BODY):
        c.drawString(-250, 40 - 16 * k, line)
    c.showPage()
    c.save()
    return buf.getvalue()


LEFT_PAGE = [
    "The left page of the spread opens the issue with a letter from the editor to every reader.",
    "It goes on for a few lines, as a page of prose does, so that it reads as a body of text.",
    "Its last line says that the article on the right page is the one this issue is about.",
]
RIGHT_PAGE = [
    "The right page of the spread holds the article itself, set in the same type as the left.",
    "A second line of the article continues the story that the right page was cut to show.",
    "The third line ends the article's first paragraph with a few more words of plain prose.",
]
SLUG = "job 4471 spread.indd 12 2012-03-04 10:00"


def _body(c: canvas.Canvas, x: float, top: float, lines: list[str], copies: int) -> None:
    """`lines` repeated `copies` times as paragraphs from `top` down, 11 pt Helvetica."""
    c.setFont("Helvetica", 11)
    y = top
    for _ in range(copies):
        for line in lines:
            c.drawString(x, y, line)
            y -= 14
        y -= 10


def spread_pdf(copies: int = 4) -> bytes:
    """Two letter pages set side by side on one 1224 x 792 sheet, the page object's CropBox on the right half:
    a spread a layout tool exported as one page, whose left page only a MediaBox reader (poppler, olmOCR) shows."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(1224, 792))
    c.setCropBox((612, 0, 1224, 792))
    _body(c, 60, 720, LEFT_PAGE, copies)
    _body(c, 672, 720, RIGHT_PAGE, copies)
    c.showPage()
    c.save()
    return buf.getvalue()


def bleed_pdf() -> bytes:
    """A print page: a 648 x 828 sheet (bleed and slug) cropped to its 612 x 792 trim; a job line in the slug."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(648, 828))
    c.setCropBox((18, 18, 630, 810))
    _body(c, 90, 740, RIGHT_PAGE, 4)
    c.setFont("Helvetica", 6)
    c.drawString(24, 6, SLUG)
    c.showPage()
    c.save()
    return buf.getvalue()


def split_spread_pdf() -> bytes:
    """The spread of `spread_pdf` split into two pages the way a scanned book's spreads are: the same sheet twice,
    the first page's CropBox on its left half, the second's on its right half."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import RectangleObject

    sheet = PdfReader(io.BytesIO(spread_pdf())).pages[0]
    writer = PdfWriter()
    for crop in ((0, 0, 612, 792), (612, 0, 1224, 792)):
        page = writer.add_page(sheet)
        page.cropbox = RectangleObject(crop)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
