"""Builders of small PDFs with known text for the tests (reportlab, pypdf, pypdfium2)."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import BinaryIO

import pypdfium2 as pdfium
from PIL import Image
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

SENTENCES = [
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Seven wizards quietly packed their boxes with twelve jugs of liquor.",
    "A journey of a thousand miles begins with a single careful step.",
    "Bright morning light filled the small kitchen before breakfast.",
    "The committee approved the annual budget after a long debate.",
    "Farmers harvested wheat and barley during the warm autumn weeks.",
    "Engineers tested the new bridge with heavy trucks and sensors.",
    "Children played football in the park until the sun went down.",
]


def _wrap(text: str, width: int) -> list[str]:
    words, lines, line = text.split(), [], ""
    for w in words:
        if len(line) + len(w) + 1 > width and line:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    if line:
        lines.append(line)
    return lines


def text_pdf(pages: Sequence[Sequence[str]], *, font_size: int = 14, rotate: int = 0) -> bytes:
    """A born-digital PDF: each page holds its paragraphs as real text, top to bottom."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    width, height = A4
    for paragraphs in pages:
        y = height - 72
        c.setFont("Helvetica", font_size)
        for para in paragraphs:
            for line in _wrap(para, int(900 / font_size)):
                c.drawString(72, y, line)
                y -= font_size * 1.5
            y -= font_size
        c.showPage()
    c.save()
    data = buf.getvalue()
    return set_rotate(data, rotate) if rotate else data


def two_column_pdf(left: Sequence[str], right: Sequence[str], *, font_size: int = 12) -> bytes:
    """One page with two text columns; the right column's lines interleave vertically with the left's."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    width, height = A4
    c.setFont("Helvetica", font_size)
    col_w = int((width - 72 * 2 - 24) / 2)
    for x, paras in ((72, left), (72 + col_w + 24, right)):
        y = height - 72
        for para in paras:
            for line in _wrap(para, int(col_w / (font_size * 0.5))):
                c.drawString(x, y, line)
                y -= font_size * 1.5
            y -= font_size
    c.showPage()
    c.save()
    return buf.getvalue()


def set_rotate(pdf: bytes, degrees: int) -> bytes:
    """Set /Rotate on every page (the viewer turns the page; the content stays as drawn)."""
    from pypdf import PdfReader, PdfWriter

    reader, writer = PdfReader(io.BytesIO(pdf)), PdfWriter()
    for page in reader.pages:
        page.rotate(degrees)
        writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def render_image(pdf: bytes, page: int = 0, dpi: int = 150) -> Image.Image:
    """Rasterise one page of a PDF (used to make scans)."""
    doc = pdfium.PdfDocument(pdf)
    try:
        return doc[page].render(scale=dpi / 72).to_pil().convert("L")
    finally:
        doc.close()


def scan_pdf(pdf: bytes, *, rotate_content: int = 0, dpi: int = 150) -> bytes:
    """An image-only "scan" of every page of `pdf`; `rotate_content` turns the picture (a sideways scan)."""
    images = []
    doc = pdfium.PdfDocument(pdf)
    try:
        for i in range(len(doc)):
            img = doc[i].render(scale=dpi / 72).to_pil().convert("L")
            if rotate_content:
                img = img.rotate(-rotate_content, expand=True, fillcolor=255)
            images.append(img)
    finally:
        doc.close()
    return images_pdf(images, dpi=dpi)


def images_pdf(images: Sequence[Image.Image], *, dpi: int = 150) -> bytes:
    """A PDF whose pages are the given images and nothing else."""
    buf = io.BytesIO()
    first, rest = images[0], list(images[1:])
    first.save(buf, format="PDF", resolution=dpi, save_all=True, append_images=rest)
    return buf.getvalue()


def form_pdf() -> bytes:
    """A PDF with an AcroForm text field."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.drawString(72, 760, "Application form. Please write your name below.")
    c.acroForm.textfield(name="applicant", x=72, y=700, width=300, height=20)
    c.showPage()
    c.save()
    return buf.getvalue()


def encrypted_pdf(pdf: bytes, user_password: str, owner_password: str = "owner-secret") -> bytes:
    """`pdf` encrypted with AES; an empty user password opens without one."""
    from pypdf import PdfReader, PdfWriter

    reader, writer = PdfReader(io.BytesIO(pdf)), PdfWriter()
    for page in reader.pages:
        writer.add_page(page)
    writer.encrypt(user_password=user_password, owner_password=owner_password, algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def huge_page_pdf(points: float = 14400.0) -> bytes:
    """One page of `points` x `points` (200 inches square at the default): the pixel cap must hold."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(points, points))
    c.setFont("Helvetica", 200)
    c.drawString(100, points / 2, "Enormous page")
    c.showPage()
    c.save()
    return buf.getvalue()


def write(path: Path, data: bytes) -> Path:
    """Write bytes, creating parents; returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def page_image_pdf(image: Image.Image | BinaryIO, over: Callable[[canvas.Canvas], None] | None = None) -> bytes:
    """An A4 page that is `image` (a PIL image, or a JPEG file kept as it is) edge to edge, as a scanner stores it;
    `over` draws on top of it (an invisible OCR layer, a download stamp)."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.drawImage(ImageReader(image), 0, 0, *A4)
    if over:
        over(c)
    c.showPage()
    c.save()
    return buf.getvalue()


def invisible_text(c: canvas.Canvas, lines: Iterable[str], x: float, y: float, size: float, leading: float) -> None:
    """`lines` in Helvetica at `size`, first baseline at `y`, drawn in render mode 3 (there, not shown), as OCR
    software writes its text layer over a scan."""
    text = c.beginText()
    text.setTextRenderMode(3)
    text.setFont("Helvetica", size)
    for line in lines:
        text.setTextOrigin(x, y)
        text.textLine(line)
        y -= leading
    c.drawText(text)


def stamped_scan_pdf(pdf: bytes, stamp: str, *, dpi: int = 110) -> bytes:
    """A full-page scan of `pdf`'s first page with one line of real text on top (a download stamp)."""

    def draw_stamp(c: canvas.Canvas) -> None:
        c.setFont("Helvetica", 8)
        c.drawString(36, 20, stamp)

    return page_image_pdf(render_image(pdf, 0, dpi), draw_stamp)


def add_tar_member(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    """Add bytes under any member name (even `../x.pdf`, which tarfile itself would accept)."""
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))
