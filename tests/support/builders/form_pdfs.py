"""PDFs the renderer tests build: filled AcroForms, CropBoxes off the page, an empty owner password."""

from __future__ import annotations

import io

from pypdf import PdfReader, PdfWriter
from pypdf._encryption import AlgV5
from pypdf.generic import ArrayObject, ByteStringObject, FloatObject, NameObject
from reportlab.pdfgen import canvas

PAGE = (612.0, 792.0)
# Where form_pdf puts its single-line text field (PDF space: x, y from the bottom, width, height).
NAME_FIELD = (150.0, 700.0, 220.0, 22.0)
NAME_VALUE = "Ada Lovelace"
NOTES_VALUE = "First line of notes\nSecond line of notes"
SECRET_VALUE = "hunter2"


def form_pdf() -> bytes:
    """One page with labels in the content and filled fields: a text field, a multi-line one, a password one,
    a checked box; the values live only in the widgets' appearance streams."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=PAGE)
    c.setFont("Helvetica", 12)
    c.drawString(72, 706, "Full name:")
    x, y, w, h = NAME_FIELD
    c.acroForm.textfield(
        name="name", value=NAME_VALUE, x=x, y=y, width=w, height=h, fontSize=12, borderWidth=0, fillColor=None
    )
    c.drawString(72, 640, "Notes:")
    c.acroForm.textfield(
        name="notes",
        value=NOTES_VALUE,
        x=150,
        y=600,
        width=300,
        height=52,
        fontSize=12,
        fieldFlags="multiline",
        borderWidth=0,
        fillColor=None,
    )
    c.drawString(72, 560, "Password:")
    c.acroForm.textfield(name="pw", value=SECRET_VALUE, x=150, y=554, width=120, height=20, fieldFlags="password")
    c.drawString(72, 520, "Subscribed:")
    c.acroForm.checkbox(name="subscribed", checked=True, x=150, y=516, size=14)
    c.drawString(72, 400, "Thank you for filling in this form; it is read by the office within a week.")
    c.showPage()
    c.save()
    return buf.getvalue()


def _two_text_pages() -> bytes:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=PAGE)
    for text in ("The first page says where the crop box went.", "The second page is an ordinary page."):
        c.setFont("Helvetica", 14)
        c.drawString(72, 700, text)
        c.rect(72, 300, 200, 200, fill=1, stroke=0)
        c.showPage()
    c.save()
    return buf.getvalue()


def crop_box_pdf(first_page_crop: tuple[float, float, float, float]) -> bytes:
    """Two Letter pages with text and a black square; the first page gets the given /CropBox."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(_two_text_pages())))
    writer.pages[0][NameObject("/CropBox")] = ArrayObject([FloatObject(v) for v in first_page_crop])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def empty_owner_password_pdf(pdf: bytes, user_password: str, algorithm: str = "AES-256") -> bytes:
    """`pdf` encrypted with a user password and an EMPTY owner password (poppler opens it without asking).

    pypdf's encrypt() replaces an empty owner password with the user password, so the AES-256 owner entries are
    computed again here, from the same file key, with the empty owner password.
    """
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    writer.encrypt(user_password=user_password, owner_password="placeholder", algorithm=algorithm)
    enc = writer._encryption
    assert enc is not None and enc.V >= 5, "only the AES-256 handlers (R5, R6) are rebuilt here"
    values = AlgV5.generate_values(enc.R, user_password.encode(), b"", enc._key, enc.P, enc.EncryptMetadata)
    for key in ("/O", "/U", "/OE", "/UE", "/Perms"):
        writer._encrypt_entry[NameObject(key)] = ByteStringObject(values[key])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
