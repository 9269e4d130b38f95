"""What real PDFs do that our fixtures did not: filled forms, a CropBox off the page, an empty owner password."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest
from PIL import Image
from pypdf import PasswordType, PdfReader

from ocr_pipeline.pdf import probe as pdf_probe
from ocr_pipeline.pdf.filters import FORM_FIELDS, check_pdf
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.pdf.probe import open_pdf, probe_pdf
from ocr_pipeline.pdf.render import render_pdf_page
from tests.support.builders.form_pdfs import (
    NAME_FIELD,
    NAME_VALUE,
    PAGE,
    SECRET_VALUE,
    crop_box_pdf,
    empty_owner_password_pdf,
    form_pdf,
)
from tests.support.builders.pdfgen import SENTENCES, encrypted_pdf, text_pdf, write

DIM = 1288
OFF_PAGE_CROP = (1000.0, 1000.0, 1600.0, 1800.0)


def _ink_in_name_field(png: bytes) -> int:
    """Dark pixels inside the name field's rectangle of a rendered form page."""
    grey = np.asarray(Image.open(io.BytesIO(png)).convert("L"))
    scale = grey.shape[0] / PAGE[1]
    x, y, w, h = NAME_FIELD
    top, bottom = round((PAGE[1] - y - h) * scale), round((PAGE[1] - y) * scale)
    return int((grey[top:bottom, round(x * scale) : round((x + w) * scale)] < 128).sum())


def _rows(path: Path) -> list[dict]:
    return list(document_pages("pdf", str(path), DIM))


def test_filled_form_fields_are_drawn(tmp_path: Path) -> None:
    path = write(tmp_path / "form.pdf", form_pdf())
    doc = open_pdf(path)
    try:
        drawn = render_pdf_page(doc, 0, DIM).png
    finally:
        doc.close()
    bare = pdfium.PdfDocument(str(path))  # no form environment: pdfium leaves the widgets white
    try:
        blank = render_pdf_page(bare, 0, DIM).png
    finally:
        bare.close()
    assert _ink_in_name_field(blank) == 0
    assert _ink_in_name_field(drawn) > 200


def test_filled_form_values_are_text_in_reading_order(tmp_path: Path) -> None:
    (row,) = _rows(write(tmp_path / "form.pdf", form_pdf()))
    lines = row["text_layer"].splitlines()
    assert f"Full name: {NAME_VALUE}" in lines
    notes = lines.index("Notes: First line of notes")
    assert lines[notes + 1] == "Second line of notes"
    assert lines.index(f"Full name: {NAME_VALUE}") < notes < lines.index("Password:")
    assert SECRET_VALUE not in row["text_layer"]  # a password field's value is never corpus text
    assert row["text_layer_trusted"] and row["render_error"] is None


def test_filter_still_finds_text_fields_when_forms_are_initialised(tmp_path: Path) -> None:
    doc = open_pdf(write(tmp_path / "form.pdf", form_pdf()))
    try:
        assert doc.formenv is not None
        assert check_pdf(doc).reason == FORM_FIELDS
        # The filter must leave the form environment it found: the same document renders after it.
        assert doc.formenv is not None and _ink_in_name_field(render_pdf_page(doc, 0, DIM).png) > 200
    finally:
        doc.close()


def test_crop_box_off_the_page_renders_the_media_box(tmp_path: Path) -> None:
    path = write(tmp_path / "crop.pdf", crop_box_pdf(OFF_PAGE_CROP))
    probe = probe_pdf(path)
    assert probe.ok and probe.page_count == 2
    first, second = _rows(path)
    assert first["render_error"] is None and first["png"] and (first["width"], first["height"]) == (996, DIM)
    assert "CropBox and MediaBox do not overlap" in first["render_note"]
    assert first["text_layer"] == "The first page says where the crop box went."
    assert second["render_note"] is None and second["text_layer"] == "The second page is an ordinary page."


def test_render_notes_a_crop_box_it_repaired() -> None:
    # A caller that renders without page_rows (a benchmark) gets the repair and its note from render_pdf_page.
    doc = pdfium.PdfDocument(crop_box_pdf(OFF_PAGE_CROP))
    try:
        page = render_pdf_page(doc, 0, DIM)
    finally:
        doc.close()
    assert page.note and (page.width, page.height) == (996, DIM)


def test_crop_box_larger_than_the_page_is_the_page(tmp_path: Path) -> None:
    first, _ = _rows(write(tmp_path / "big-crop.pdf", crop_box_pdf((-100.0, -100.0, 900.0, 1000.0))))
    assert (first["width"], first["height"]) == (996, DIM) and first["render_note"] is None


def test_empty_owner_password_opens(tmp_path: Path) -> None:
    path = write(tmp_path / "owner-empty.pdf", empty_owner_password_pdf(text_pdf([SENTENCES[:3]]), "s3cret"))
    assert PdfReader(path).decrypt("") == PasswordType.OWNER_PASSWORD  # the owner password really is empty
    # pdfium tries "" only as the user password, which is set: it refuses the file on its own.
    assert not pdfium_c.FPDF_LoadDocument((str(path) + "\x00").encode(), b"\x00")
    probe = probe_pdf(path)
    assert (probe.ok, probe.page_count, probe.encrypted) == (True, 1, True)
    (row,) = _rows(path)
    assert row["text_layer"].startswith(SENTENCES[0]) and row["png"]


def test_set_user_and_owner_passwords_still_refused(tmp_path: Path) -> None:
    probe = probe_pdf(write(tmp_path / "locked.pdf", encrypted_pdf(text_pdf([SENTENCES[:2]]), "s3cret")))
    assert (probe.ok, probe.reason, probe.encrypted) == (False, pdf_probe.ENCRYPTED_PDF, True)


def test_decryption_is_bounded_in_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "owner-empty.pdf", empty_owner_password_pdf(text_pdf([SENTENCES[:3]]), "s3cret"))
    monkeypatch.setattr(pdf_probe, "MAX_DECRYPT_BYTES", path.stat().st_size - 1)
    assert probe_pdf(path).reason == pdf_probe.ENCRYPTED_PDF
    buffer = pdf_probe._BoundedBuffer(10)
    buffer.write(b"0123456789")
    with pytest.raises(OverflowError):
        buffer.write(b"!")
