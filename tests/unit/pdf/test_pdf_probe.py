"""probe_pdf / probe_image / open_pdf on real broken, encrypted and odd files built in tmp_path."""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfWriter

from ocr_pipeline.pdf import probe as pdf_probe
from ocr_pipeline.pdf.probe import PdfOpenError, open_pdf, probe_image, probe_pdf, sha256_file
from tests.support.builders.pdfgen import SENTENCES, encrypted_pdf, huge_page_pdf, scan_pdf, text_pdf, write


@pytest.fixture(scope="module")
def good_pdf() -> bytes:
    """A three-page born-digital PDF."""
    return text_pdf([SENTENCES, SENTENCES[:3], SENTENCES[3:]])


def test_good_pdf_ok(tmp_path: Path, good_pdf: bytes) -> None:
    probe = probe_pdf(write(tmp_path / "a.pdf", good_pdf))
    assert probe.ok and probe.page_count == 3 and probe.reason is None and not probe.encrypted


def test_scan_and_huge_page_ok(tmp_path: Path) -> None:
    scan = text_pdf([SENTENCES[:2]])
    assert probe_pdf(write(tmp_path / "scan.pdf", scan_pdf(scan, dpi=50))).ok
    assert probe_pdf(write(tmp_path / "huge.pdf", huge_page_pdf())).ok


def test_empty_file(tmp_path: Path) -> None:
    probe = probe_pdf(write(tmp_path / "empty.pdf", b""))
    assert (probe.ok, probe.reason, probe.page_count) == (False, pdf_probe.EMPTY_FILE, 0)


def test_too_large(tmp_path: Path, good_pdf: bytes) -> None:
    path = write(tmp_path / "big.pdf", good_pdf)
    assert probe_pdf(path, max_bytes=100).reason == pdf_probe.TOO_LARGE
    assert probe_pdf(path).ok


def test_truncated_half_is_corrupt(tmp_path: Path, good_pdf: bytes) -> None:
    probe = probe_pdf(write(tmp_path / "half.pdf", good_pdf[: len(good_pdf) // 2]))
    assert not probe.ok and probe.reason == pdf_probe.CORRUPT_PDF


def test_missing_trailer_is_repaired(tmp_path: Path, good_pdf: bytes) -> None:
    # Without xref table and trailer PDFium rebuilds the file from its objects: usable, so ok.
    cut = good_pdf[: good_pdf.rindex(b"xref")]
    probe = probe_pdf(write(tmp_path / "notrailer.pdf", cut))
    assert probe.ok and probe.page_count == 3


def test_random_bytes_not_a_pdf(tmp_path: Path) -> None:
    probe = probe_pdf(write(tmp_path / "noise.pdf", os.urandom(4096)))
    assert probe.reason == pdf_probe.NOT_A_PDF


def test_other_format_not_a_pdf(tmp_path: Path) -> None:
    buf = io.BytesIO()
    Image.new("RGB", (10, 10)).save(buf, format="PNG")
    assert probe_pdf(write(tmp_path / "img.pdf", buf.getvalue())).reason == pdf_probe.NOT_A_PDF


def test_html_named_pdf(tmp_path: Path) -> None:
    html = b"\n  <!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body>gone</body></html>"
    assert probe_pdf(write(tmp_path / "page.pdf", html)).reason == pdf_probe.HTML_NOT_PDF


def test_encrypted_unknown_password_rejected(tmp_path: Path, good_pdf: bytes) -> None:
    probe = probe_pdf(write(tmp_path / "locked.pdf", encrypted_pdf(good_pdf, "secret")))
    assert (probe.ok, probe.reason, probe.encrypted) == (False, pdf_probe.ENCRYPTED_PDF, True)


def test_encrypted_empty_user_password_opens(tmp_path: Path, good_pdf: bytes) -> None:
    path = write(tmp_path / "owner-only.pdf", encrypted_pdf(good_pdf, ""))
    probe = probe_pdf(path)
    assert probe.ok and probe.page_count == 3 and probe.encrypted
    doc = open_pdf(path)
    try:
        assert len(doc) == 3
    finally:
        doc.close()


def test_zero_page_pdf(tmp_path: Path) -> None:
    buf = io.BytesIO()
    PdfWriter().write(buf)
    path = write(tmp_path / "zero.pdf", buf.getvalue())
    assert probe_pdf(path).reason == pdf_probe.NO_PAGES
    with pytest.raises(PdfOpenError) as err:
        open_pdf(path)
    assert err.value.reason == pdf_probe.NO_PAGES


def test_too_many_pages(tmp_path: Path, good_pdf: bytes) -> None:
    probe = probe_pdf(write(tmp_path / "long.pdf", good_pdf), max_pages=2)
    assert (probe.ok, probe.reason, probe.page_count) == (False, pdf_probe.TOO_MANY_PAGES, 3)


def test_missing_file_does_not_raise(tmp_path: Path) -> None:
    assert probe_pdf(tmp_path / "nope.pdf").reason == pdf_probe.UNREADABLE_FILE


def test_sha256_file(tmp_path: Path) -> None:
    data = os.urandom(3 * 1024 + 7)
    path = write(tmp_path / "x.bin", data)
    assert sha256_file(path, chunk_size=1024) == hashlib.sha256(data).hexdigest()


def _image_bytes(fmt: str, size: tuple[int, int] = (64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 10, 10)).save(buf, format=fmt)
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_probe_image_ok(tmp_path: Path, fmt: str) -> None:
    probe = probe_image(write(tmp_path / f"p.{fmt.lower()}", _image_bytes(fmt)))
    assert probe.ok and probe.page_count == 1


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_probe_image_truncated(tmp_path: Path, fmt: str) -> None:
    data = _image_bytes(fmt, (400, 300))
    probe = probe_image(write(tmp_path / f"t.{fmt.lower()}", data[: len(data) // 2]))
    assert probe.reason == pdf_probe.CORRUPT_IMAGE


def test_probe_image_garbage_and_empty(tmp_path: Path) -> None:
    assert probe_image(write(tmp_path / "g.png", os.urandom(500))).reason == pdf_probe.CORRUPT_IMAGE
    assert probe_image(write(tmp_path / "e.png", b"")).reason == pdf_probe.EMPTY_FILE


def test_probe_image_other_format(tmp_path: Path) -> None:
    assert probe_image(write(tmp_path / "a.gif", _image_bytes("GIF"))).reason == pdf_probe.UNSUPPORTED_IMAGE


def test_probe_image_bomb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A small limit stands in for PIL's 89 MP default: both the warning and the error band reject.
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    assert probe_image(write(tmp_path / "b.png", _image_bytes("PNG", (40, 40)))).reason == "image_too_large"
    assert probe_image(write(tmp_path / "c.png", _image_bytes("PNG", (100, 100)))).reason == "image_too_large"
