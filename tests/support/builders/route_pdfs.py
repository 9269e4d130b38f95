"""PDFs whose text layer lies in each way routing must catch, and plain prose it may route.

- a font whose ToUnicode map is shifted (the page shows "The committee", the layer says "7KH FRPPLWWHH") or
  scrambled (letters in a fixed random permutation): letters, no words;
- a scan under an invisible OCR layer with wrong words (layout_pdfs.hidden_layer_scan_pdf);
- a digital header stamped on a scanned body (pdfgen.stamped_scan_pdf);
- born-digital text over a pasted raster paragraph of text the layer lacks;
- a page of equations, and a ruled table (layout_pdfs.table_pdf);
- plain born-digital prose in one or two columns, several pages, with a running head and page numbers.
"""

from __future__ import annotations

import io
import random
import textwrap
from collections.abc import Sequence

from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from tests.support.builders import pdfgen
from tests.support.builders.raw_pdf import assemble, one_page

W, H = A4
PROSE = (
    "The committee met on Tuesday to review the budget for the coming year. Members raised questions about the cost "
    "of the new library wing, and the chair promised a written answer before the next session of the council. The "
    "treasurer reported that the reserve had grown by four percent over the year, mostly through interest on the "
    "deposits held with the county savings bank, and that no new borrowing would be needed for the roof. A letter "
    "from the parish asked for help with the bridge over the mill stream, whose piers the winter floods had "
    "loosened; the clerk was told to find out what a survey by the county engineer would cost, and to report it."
)
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


# Words of the built prose: content words and the function words every English sentence has, in the share they have.
_CONTENT = [
    "committee",
    "budget",
    "library",
    "council",
    "treasurer",
    "reserve",
    "deposits",
    "county",
    "bank",
    "roof",
    "parish",
    "bridge",
    "stream",
    "winter",
    "floods",
    "survey",
    "engineer",
    "report",
    "members",
    "questions",
    "answer",
    "session",
    "year",
    "interest",
    "borrowing",
    "letter",
    "help",
    "piers",
    "clerk",
    "chair",
    "cost",
    "wing",
    "meeting",
    "minutes",
    "hall",
    "village",
    "road",
    "school",
    "teacher",
    "market",
    "farmers",
    "harvest",
    "river",
    "mill",
]
_FUNCTION = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "that",
    "for",
    "it",
    "as",
    "with",
    "was",
    "on",
    "by",
    "at",
    "from",
    "which",
    "not",
    "but",
    "had",
    "they",
    "were",
]


def prose_paragraphs(n: int, start: int = 0, sentences: int = 6) -> list[str]:
    """`n` paragraphs of prose whose sentences are drawn at random (seeded by `start`): no eight words recur in the
    same order, as in any honest page, so no quality guard takes a paragraph for a model's loop."""
    rng = random.Random(start)
    out = []
    for _ in range(n):
        said = []
        for _ in range(sentences):
            words = [rng.choice(_FUNCTION if k % 3 == 1 else _CONTENT) for k in range(rng.randint(10, 16))]
            said.append(" ".join(words).capitalize() + ".")
        out.append(" ".join(said))
    return out


def mapped_font_pdf(mapping: dict[str, str], lines: Sequence[str] | None = None) -> bytes:
    """Helvetica text whose ToUnicode map gives each letter as `mapping` says: the page shows the right words."""
    lines = list(lines or textwrap.wrap(" ".join(prose_paragraphs(3)), 90))
    pairs = [(ord(c), ord(mapping.get(c, c))) for c in sorted({c for line in lines for c in line} | {" "})]
    entries = "".join(f"<{code:02X}> <{uni:04X}>" for code, uni in pairs)
    cmap = (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /M def "
        f"1 begincodespacerange <00> <FF> endcodespacerange {len(pairs)} beginbfchar {entries} endbfchar "
        "endcmap CMapName currentdict /CMap defineresource pop end end"
    )
    escaped = [line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in lines]
    content = "BT /F1 10 Tf 14 TL 60 780 Td " + " ".join(f"T* ({line}) Tj" for line in escaped) + " ET"
    objects = one_page(content.encode("latin-1"), "/F1 5 0 R", W, H)
    objects[5] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode 6 0 R >>"
    objects[6] = f"<< /Length {len(cmap)} >>\nstream\n{cmap}\nendstream".encode("latin-1")
    return assemble(objects)


def shifted_map_pdf() -> bytes:
    """Each letter's code mapped 29 characters down: "The" reads "7KH" (the shift docling's users report)."""
    return mapped_font_pdf({c: chr(ord(c) - 29) for c in _LETTERS})


def scrambled_map_pdf(seed: int = 7) -> bytes:
    """Each letter mapped to another in a fixed permutation: letters in plausible proportions, no words."""
    shuffled = list(_LETTERS)
    random.Random(seed).shuffle(shuffled)
    return mapped_font_pdf(dict(zip(_LETTERS, shuffled, strict=True)))


def pasted_raster_pdf() -> bytes:
    """Two born-digital paragraphs over a pasted picture of a third paragraph, whose words the layer lacks."""
    pasted = pdfgen.render_image(pdfgen.text_pdf([textwrap.wrap(prose_paragraphs(1, 9)[0], 70)], font_size=12), dpi=100)
    pasted = pasted.crop((0, 0, pasted.width, pasted.height // 3))
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    y = _draw_lines(c, textwrap.wrap(" ".join(prose_paragraphs(2, 3)), 95), 60, H - 60)
    c.drawImage(ImageReader(pasted), 60, y - 260, width=W - 120, height=240)
    c.showPage()
    c.save()
    return buf.getvalue()


def equations_pdf() -> bytes:
    """A page of prose and numbered equations in symbols (Greek letters, integrals, sums), as a paper sets them."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    y = _draw_lines(c, textwrap.wrap(prose_paragraphs(1, 5)[0], 95), 60, H - 60)
    for k, formula in enumerate(["∫ f(x) dx = ∑ αₖ βₖ", "∂u/∂t = ∇²u + λ u", "E = ∑ ψ* Ĥ ψ ≤ ∞"], 1):
        c.setFont("Helvetica", 11)
        c.drawCentredString(W / 2, y - 30, formula)
        c.drawRightString(W - 60, y - 30, f"({k})")
        y -= 40
    c.showPage()
    c.save()
    return buf.getvalue()


def prose_pdf(pages: int = 3, columns: int = 1, head: str = "Proceedings of the Parish Council") -> bytes:
    """Born-digital prose, `columns` columns a page, a running head and a page number on every page."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    gutter, margin = 24, 60
    width = (W - 2 * margin - gutter * (columns - 1)) / columns
    for n in range(pages):
        c.setFont("Helvetica", 8)
        c.drawString(margin, H - 36, head)
        c.drawCentredString(W / 2, 30, str(n + 1))
        text = " ".join(prose_paragraphs(4 * columns, 11 + n))
        lines = textwrap.wrap(text, int(width / 5.2))
        per_column = (len(lines) + columns - 1) // columns
        for k in range(columns):
            _draw_lines(c, lines[k * per_column : (k + 1) * per_column][:48], margin + k * (width + gutter), H - 70)
        c.showPage()
    c.save()
    return buf.getvalue()


def _draw_lines(c: canvas.Canvas, lines: Sequence[str], x: float, y: float, size: float = 10.5) -> float:
    """Draw `lines` from baseline `y` down, 14 pt apart; returns the next baseline."""
    c.setFont("Helvetica", size)
    for line in lines:
        c.drawString(x, y, line)
        y -= 14
    return y
