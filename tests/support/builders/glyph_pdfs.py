"""Hand-written PDFs with text-layer quirks of real documents: unmapped glyph codes, words set apart by positioning.

reportlab always types a space between words and maps every glyph, so these pages are written as raw PDF: one
Helvetica font whose encoding can leave codes without a character, and text shown with TJ so that words can be
placed apart by a kerning offset instead of a space, as justified small print and newspapers often are.
"""

from __future__ import annotations

from collections.abc import Sequence

from tests.support.builders.raw_pdf import assemble, one_page

PAGE_WIDTH, PAGE_HEIGHT = 612, 792
LEFT, TOP, LEADING, SIZE = 72, 720, 14, 10


def line_baselines(count: int) -> list[float]:
    """Baselines (PDF space, y up) of the first `count` lines `raw_text_pdf` draws."""
    return [TOP - LEADING * (k + 1) for k in range(count)]


def raw_text_pdf(lines: Sequence[str], *, unmapped_code: int | None = None) -> bytes:
    """A one-page PDF showing each entry of `lines` (a PDF string `(...)` or TJ array `[...]`) on its own line.

    `unmapped_code`: a byte the font's encoding maps to a glyph name that has no character (a drawn glyph whose
    text pdfium reports as that control code and its text string leaves out).
    """
    shows = " ".join(f"T* {line} TJ" if line.startswith("[") else f"T* {line} Tj" for line in lines)
    content = f"BT /F1 {SIZE} Tf {LEADING} TL {LEFT} {TOP} Td {shows} ET"
    differences = f"/Differences [{unmapped_code} /g{unmapped_code}]" if unmapped_code is not None else ""
    return _with_fonts(
        content,
        "/F1 5 0 R",
        [
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
            f"/Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding {differences} >> >>",
        ],
    )


def small_caps_pdf(font_name: str, flags: int) -> bytes:
    """A line "Millotte J.-P. (1959)" in a font named `font_name` whose descriptor has `flags` (not embedded: pdfium
    draws a stand-in), over a line "plain text here" in Times-Roman."""
    content = "BT /F1 12 Tf 50 700 Td (Millotte J.-P. \\(1959\\)) Tj ET BT /F2 12 Tf 50 680 Td (plain text here) Tj ET"
    return _with_fonts(
        content,
        "/F1 5 0 R /F2 7 0 R",
        [
            f"<< /Type /Font /Subtype /Type1 /BaseFont /{font_name} /FirstChar 32 /LastChar 126 "
            f"/Widths [{' 500' * 95}] /FontDescriptor 6 0 R /Encoding /WinAnsiEncoding >>",
            f"<< /Type /FontDescriptor /FontName /{font_name} /Flags {flags} /FontBBox [0 -200 1000 900] "
            "/ItalicAngle 0 /Ascent 700 /Descent -200 /CapHeight 660 /StemV 80 >>",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>",
        ],
    )


def outsize_symbol_pdf() -> bytes:
    """Three lines in Times-Roman 10 pt, 12 pt apart; the first holds a minus sign in a font whose descriptor gives
    an ascent and descent of 1.5 em each (TeX's math symbol font spans two lines the same way): its loose box
    reaches well into the next line."""
    content = (
        "BT /F2 10 Tf 50 700 Td (is situated in the range R ) Tj /F1 10 Tf (-) Tj "
        "/F2 10 Tf ( l/2 < r < R. This behaviour is easily) Tj ET "
        "BT /F2 10 Tf 50 688 Td (understood from the figure, where we have plotted the) Tj ET "
        "BT /F2 10 Tf 50 676 Td (shifted frequencies as a function of the radius.) Tj ET"
    )
    return _with_fonts(
        content,
        "/F1 5 0 R /F2 7 0 R",
        [
            f"<< /Type /Font /Subtype /Type1 /BaseFont /CMSY10 /FirstChar 32 /LastChar 126 /Widths [{' 778' * 95}] "
            "/FontDescriptor 6 0 R /Encoding /WinAnsiEncoding >>",
            "<< /Type /FontDescriptor /FontName /CMSY10 /Flags 4 /FontBBox [-29 -960 1116 775] /ItalicAngle 0 "
            "/Ascent 1500 /Descent -1500 /CapHeight 683 /StemV 40 >>",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>",
        ],
    )


def _with_fonts(content: str, fonts: str, font_objects: Sequence[str]) -> bytes:
    """A letter-size page drawing `content` with `fonts` (its /Font entries), the font objects numbered from 5."""
    objects = one_page(content.encode("latin-1"), fonts, PAGE_WIDTH, PAGE_HEIGHT)
    objects.update({number: body.encode("latin-1") for number, body in enumerate(font_objects, 5)})
    return assemble(objects)


def positioned_words(words: Sequence[str], gap: int, kern: int = 0) -> str:
    """A TJ array drawing `words` with no space character, each moved `gap` thousandths of an em from the last.

    `kern`: each letter pair is also nudged by alternately plus and minus this much (uneven kerning inside words).
    """
    shown = []
    for word in words:
        if kern:
            shown.append(" ".join(f"({ch}) {kern if k % 2 else -kern}" for k, ch in enumerate(word)))
        else:
            shown.append(f"({word})")
    return "[" + f" {-gap} ".join(shown) + "]"
