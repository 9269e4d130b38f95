"""Cheap, never-raising checks of an input file (PDF or page image) before any page is rendered."""

from __future__ import annotations

import hashlib
import io
import logging
import os
import warnings
import weakref
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image

from ocr_pipeline.pdf.crop_box import repair_crop_box
from ocr_pipeline.settings import MAX_INPUT_BYTES, MAX_PAGES_PER_PDF

# Machine-readable rejection reasons (they end up in rejected/<group>.jsonl, so never rename one).
EMPTY_FILE = "empty_file"
TOO_LARGE = "too_large"
HTML_NOT_PDF = "html_not_pdf"
NOT_A_PDF = "not_a_pdf"
CORRUPT_PDF = "corrupt_pdf"
ENCRYPTED_PDF = "encrypted_pdf"
NO_PAGES = "no_pages"
TOO_MANY_PAGES = "too_many_pages"
CORRUPT_IMAGE = "corrupt_image"
IMAGE_TOO_LARGE = "image_too_large"
UNSUPPORTED_IMAGE = "unsupported_image"
UNREADABLE_FILE = "unreadable_file"

# PDFium itself accepts a %PDF- header anywhere in the first 1024 bytes, so the sniff looks as far.
_SNIFF_BYTES = 1024
_HTML_MARKERS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<meta", b"<title", b"<script")
_IMAGE_FORMATS = {"PNG", "JPEG"}
# An encrypted file pdfium refuses is decrypted in memory by pypdf only up to this size, and its decrypted copy may
# grow to twice that (pypdf writes objects out of their object streams) before the attempt is given up.
MAX_DECRYPT_BYTES = 128 * 1024 * 1024
_DECRYPTED_GROWTH = 2
# Documents open_pdf made from a decrypted copy: is_encrypted still calls them encrypted.
_DECRYPTED: weakref.WeakSet[pdfium.PdfDocument] = weakref.WeakSet()
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PdfProbe:
    """What the inventory records about one input: readable or not, and why not."""

    ok: bool
    page_count: int
    reason: str | None = None
    detail: str = ""
    encrypted: bool = False


class PdfOpenError(Exception):
    """A PDF PDFium cannot open; `reason` is one of this module's reason constants."""

    def __init__(self, reason: str, detail: str, *, encrypted: bool = False) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.encrypted = encrypted


def sha256_file(path: str | Path, chunk_size: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in chunks so huge inputs never sit in memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def _load_raw(path: Path, password: str | None) -> pdfium_c.FPDF_DOCUMENT:
    """Open with PDFium's C API: the wrapper turns a 0-page PDF into a misleading stale error code."""
    encoded_pw = None if password is None else (password + "\x00").encode("utf-8")
    raw = pdfium_c.FPDF_LoadDocument((str(path) + "\x00").encode("utf-8", errors="surrogateescape"), encoded_pw)
    if not raw:
        err = pdfium_c.FPDF_GetLastError()
        if err in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY):
            raise PdfOpenError(ENCRYPTED_PDF, "a password is required to open it", encrypted=True)
        raise PdfOpenError(CORRUPT_PDF, f"PDFium could not parse it (error code {err})")
    return raw


class _BoundedBuffer(io.BytesIO):
    """An in-memory file that refuses to grow past `limit` bytes."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def write(self, data: bytes) -> int:  # type: ignore[override]  # pypdf writes bytes, not any buffer
        """Write, or raise OverflowError once the buffer would pass its limit."""
        if self.tell() + len(data) > self.limit:
            raise OverflowError(f"the decrypted copy grew past {self.limit} bytes")
        return super().write(data)


def _decrypted_copy(path: Path) -> bytes | None:
    """The PDF decrypted by pypdf with the empty password, or None when that does not open it.

    pdfium tries an empty password only as the user password; poppler (and pypdf) try it as the owner password too,
    which opens a file whose owner password is empty and whose user password is set.
    """
    # Imported here to keep start-up light: only this rare path needs pypdf's crypto.
    from pypdf import PasswordType, PdfReader, PdfWriter

    size = path.stat().st_size
    if size > MAX_DECRYPT_BYTES:
        return None
    try:
        reader = PdfReader(path)
        if not reader.is_encrypted or reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            return None
        out = _BoundedBuffer(size * _DECRYPTED_GROWTH + (1 << 20))
        PdfWriter(clone_from=reader).write(out)
        return out.getvalue()
    except Exception as exc:  # noqa: BLE001 - pypdf raises many types on hostile files; the file stays refused
        log.info("pypdf could not decrypt %s: %s: %s", path, type(exc).__name__, exc)
        return None


def _open_encrypted(path: Path) -> pdfium.PdfDocument:
    """Open an encrypted PDF with the empty password, as user password (pdfium) or owner password (pypdf)."""
    try:
        # Many "protected" PDFs only restrict printing/copying and open with an empty user password.
        return pdfium.PdfDocument(_load_raw(path, ""))
    except PdfOpenError as exc:
        if exc.reason != ENCRYPTED_PDF:
            raise
        data = _decrypted_copy(path)
        if data is None:
            raise
    doc = pdfium.PdfDocument(data)
    _DECRYPTED.add(doc)
    return doc


def open_pdf(path: str | Path) -> pdfium.PdfDocument:
    """Open a PDF for reading (forms initialised), trying the empty password; raises PdfOpenError with a reason."""
    path = Path(path)
    try:
        doc = pdfium.PdfDocument(_load_raw(path, None))
    except PdfOpenError as exc:
        if exc.reason != ENCRYPTED_PDF:
            raise
        doc = _open_encrypted(path)
    try:
        # Before any page is loaded: pdfium draws form fields (and form_fields.py reads their values) only on pages
        # loaded after the form environment exists; without one a filled form renders as blank boxes.
        doc.init_forms()
    except Exception as exc:  # noqa: BLE001 - a broken form is no reason to lose the page content under it
        log.info("forms of %s not initialised: %s: %s", path, type(exc).__name__, exc)
    if pdfium_c.FPDF_GetPageCount(doc.raw) < 1:
        doc.close()
        raise PdfOpenError(NO_PAGES, "the document has no pages")
    return doc


def is_encrypted(doc: pdfium.PdfDocument) -> bool:
    """Whether the document has a security handler (it may still have opened with an empty password)."""
    return doc in _DECRYPTED or pdfium_c.FPDF_GetSecurityHandlerRevision(doc.raw) != -1


def _sniff(head: bytes) -> str | None:
    """A rejection reason from the first bytes, or None when they look like a PDF."""
    if b"%PDF-" in head:
        return None
    lowered = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if any(marker in lowered for marker in _HTML_MARKERS):
        return HTML_NOT_PDF
    return NOT_A_PDF


def _check_size(path: Path, max_bytes: int) -> tuple[PdfProbe | None, bytes]:
    """Stat and sniff the file: a rejection probe, or None and the first bytes."""
    try:
        size = path.stat().st_size
        if size == 0:
            return PdfProbe(False, 0, EMPTY_FILE, "the file is 0 bytes"), b""
        if size > max_bytes:
            return PdfProbe(False, 0, TOO_LARGE, f"{size} bytes is over the {max_bytes} byte limit"), b""
        with open(path, "rb") as fh:
            return None, fh.read(_SNIFF_BYTES)
    except OSError as exc:
        return PdfProbe(False, 0, UNREADABLE_FILE, f"{type(exc).__name__}: {exc}"), b""


def probe_pdf(path: str | Path, *, max_bytes: int = MAX_INPUT_BYTES, max_pages: int = MAX_PAGES_PER_PDF) -> PdfProbe:
    """Check that a PDF opens and its pages load; never raises for bad input."""
    path = Path(path)
    rejected, head = _check_size(path, max_bytes)
    if rejected:
        return rejected
    sniffed = _sniff(head)
    if sniffed:
        # Described, never quoted: the ledger must not copy bytes of a file it refused (a link to a secret).
        what = "HTML markup" if sniffed == HTML_NOT_PDF else "no %PDF- header"
        return PdfProbe(False, 0, sniffed, f"{what} in the first {len(head)} bytes")
    try:
        doc = open_pdf(path)
    except PdfOpenError as exc:
        return PdfProbe(False, 0, exc.reason, exc.detail, exc.encrypted)
    except Exception as exc:  # noqa: BLE001 - PDFium bindings can raise odd errors on hostile files
        return PdfProbe(False, 0, CORRUPT_PDF, f"{type(exc).__name__}: {exc}")
    try:
        encrypted = is_encrypted(doc)
        count = len(doc)
        if count > max_pages:
            return PdfProbe(False, count, TOO_MANY_PAGES, f"{count} pages > {max_pages}", encrypted)
        # PDFium repairs many truncated files; the file is usable if its pages actually load.
        failed = [i for i in sorted({0, count - 1}) if not _page_loads(doc, i)]
        if 0 in failed:
            return PdfProbe(False, count, CORRUPT_PDF, "the first page does not load", encrypted)
        detail = f"page {count} does not load" if failed else ""
        return PdfProbe(True, count, None, detail, encrypted)
    finally:
        doc.close()


def _page_loads(doc: pdfium.PdfDocument, index: int) -> bool:
    """Whether one page loads and has a non-degenerate size."""
    try:
        page = doc[index]
    except Exception:  # noqa: BLE001 - a page pdfium cannot load, whatever it raises, is a page that fails
        return False
    try:
        repair_crop_box(page, doc, index)  # a CropBox off the page (or hiding its text): its MediaBox, not refused
        width, height = page.get_size()
        return width > 0 and height > 0
    finally:
        page.close()


def probe_image(path: str | Path, *, max_bytes: int = MAX_INPUT_BYTES) -> PdfProbe:
    """Check that a PNG/JPEG decodes and is not a decompression bomb; one page when ok."""
    path = Path(path)
    rejected, _ = _check_size(path, max_bytes)
    if rejected:
        return rejected
    try:
        with warnings.catch_warnings():
            # PIL only warns between MAX_IMAGE_PIXELS and twice that; a bomb is a rejection here.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as img:
                if img.format not in _IMAGE_FORMATS:
                    return PdfProbe(False, 0, UNSUPPORTED_IMAGE, f"format {img.format} is not PNG or JPEG")
                width, height = img.size
                if width < 1 or height < 1:
                    return PdfProbe(False, 0, CORRUPT_IMAGE, f"size {width}x{height}")
                # JPEG draft decoding at reduced scale still reads every byte, but far cheaper.
                img.draft("RGB", (max(1, width // 8), max(1, height // 8)))
                img.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        return PdfProbe(False, 0, IMAGE_TOO_LARGE, str(exc))
    except Exception as exc:  # noqa: BLE001 - PIL raises many types (OSError, SyntaxError, ValueError) for bad data
        return PdfProbe(False, 0, CORRUPT_IMAGE, f"{type(exc).__name__}: {exc}")
    return PdfProbe(True, 1, None, f"{width}x{height}")


@dataclass
class InputFacts:
    """The outcome of reading one input: facts when usable, a rejection reason otherwise."""

    size: int = 0
    sha256: str = ""
    page_count: int = 0
    reason: str | None = None
    detail: str = ""


def probe_path(kind: str, path: str) -> InputFacts:
    """Probe a local file (a PDF, or an image as one page)."""
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        return InputFacts(reason="unreadable", detail=str(exc))
    digest = sha256_file(path) if 0 < size <= MAX_INPUT_BYTES else ""
    probe = probe_image(path) if kind == "image" else probe_pdf(path)
    if not probe.ok:
        return InputFacts(size=size, sha256=digest, reason=probe.reason, detail=probe.detail)
    return InputFacts(size=size, sha256=digest, page_count=probe.page_count)
