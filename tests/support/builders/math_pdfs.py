"""Tiny PDFs with formulas set in fonts named as TeX's math fonts are (CMMI10, CMSY10, CMEX10), written by hand.

reportlab cannot name a font CMMI10, and the math rules read font names: these pages declare unembedded Type 1
fonts by those names (pdfium draws them with a stand-in and reports the declared name), glyphs placed with `Td`
at chosen sizes and baselines, fraction bars and radical rules as thin filled rectangles.
"""

from __future__ import annotations

from tests.support.builders.raw_pdf import assemble, one_page

# Fonts of every page: text (Times roman, bold, italic), math italic, math symbols, math extension. A ToUnicode map
# gives the math italic and symbol fonts' codes 0xe1, 0xe2, ... the meanings pdfTeX's fonts carry (alpha, beta;
# radical, minus).
FONTS = {"T": "Times-Roman", "M": "CMMI10", "S": "CMSY10", "E": "CMEX10", "B": "Times-Bold", "I": "Times-Italic"}
_UNICODE = {"CMMI10": "\u03b1\u03b2\u03c0\u03b8", "CMSY10": "\u221a\u2212"}


def glyph(font: str, size: float, x: float, y: float, text: str) -> str:
    """Content-stream operators drawing `text` in font `font` (a key of FONTS) at (x, y)."""
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return f"BT /{font} {size} Tf {x} {y} Td ({escaped}) Tj ET\n"


def rule(x0: float, y: float, x1: float, thickness: float = 0.4) -> str:
    """A thin filled rectangle: a fraction bar or a radical's rule."""
    return f"{x0} {y} {x1 - x0} {thickness} re f\n"


def text_line(x: float, y: float, words: str, size: float = 10.0) -> str:
    """A line of prose in the text font (every glyph half the size wide)."""
    return glyph("T", size, x, y, words)


def _cmap(chars: str) -> str:
    """A ToUnicode stream: codes 0x20-0x7e stand for themselves, 0xe1 onwards for `chars`."""
    pairs = "".join(f"<{0xE1 + k:02X}> <{ord(c):04X}>" for k, c in enumerate(chars))
    cmap = (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /M def "
        "1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfrange <20> <7E> <0020> endbfrange "
        f"{len(chars)} beginbfchar {pairs} endbfchar endcmap CMapName currentdict /CMap defineresource pop end end"
    )
    return f"<< /Length {len(cmap)} >>\nstream\n{cmap}\nendstream"


def page(ops: str, width: int = 400, height: int = 300) -> bytes:
    """A one-page PDF drawing `ops` with FONTS available."""
    refs, fonts = [], {}
    for k, (key, base) in enumerate(FONTS.items()):
        n = 5 + 3 * k
        refs.append(f"/{key} {n} 0 R")
        widths = " ".join(["500"] * 224)
        to_unicode = f"/ToUnicode {n + 2} 0 R " if base in _UNICODE else ""
        fonts[n] = (f"<< /Type /Font /Subtype /Type1 /BaseFont /{base} {to_unicode}/FirstChar 32 "
                    f"/LastChar 255 /Widths [{widths}] /FontDescriptor {n + 1} 0 R >>")  # fmt: skip
        fonts[n + 1] = (f"<< /Type /FontDescriptor /FontName /{base} /Flags 32 /FontBBox [0 -250 1000 750] "
                        "/ItalicAngle 0 /Ascent 750 /Descent -250 /CapHeight 700 /StemV 80 >>")  # fmt: skip
        if base in _UNICODE:
            fonts[n + 2] = _cmap(_UNICODE[base])
    objects = one_page(ops.encode("latin-1"), " ".join(refs), width, height)
    objects.update({n: body.encode("latin-1") for n, body in fonts.items()})
    return assemble(objects)
