"""One-page PDFs written byte by byte, for what reportlab cannot make: glyph codes without a character, fonts named
as TeX's math fonts are, a page of a million glyphs made in a fraction of a second."""

from __future__ import annotations

from collections.abc import Mapping


def one_page(content: bytes, fonts: str, width: float, height: float, *, flate: bool = False) -> dict[int, bytes]:
    """Objects 1-4 of a one-page PDF: the catalog, the page tree, the page (`fonts`: its /Font entries, such as
    `/F1 5 0 R`) and its content stream (`flate`: `content` is already Flate-compressed)."""
    page = (
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] "
        f"/Resources << /Font << {fonts} >> >> /Contents 4 0 R >>"
    )
    stream = b"<< /Length %d%s >>\nstream\n" % (len(content), b" /Filter /FlateDecode" if flate else b"")
    return {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: page.encode("latin-1"),
        4: stream + content + b"\nendstream",
    }


def assemble(objects: Mapping[int, bytes]) -> bytes:
    """The PDF file of `objects` (number: body, 1 the catalog), written in their order, with the cross-reference
    table; a number left out gets an entry at offset 0, which pdfium and pypdf pass over."""
    out = bytearray(b"%PDF-1.4\n")
    offsets: dict[int, int] = {}
    for number, body in objects.items():
        offsets[number] = len(out)
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref, size = len(out), max(offsets) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    out += b"".join(b"%010d 00000 n \n" % offsets.get(number, 0) for number in range(1, size))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)
