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
