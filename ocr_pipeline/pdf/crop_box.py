"""The area of a page that is read and rendered: its CropBox, unless the CropBox loses the page's content.

pdfium (and every viewer) shows a page's CropBox. Two kinds of CropBox lose what the page holds:
- one wholly off the MediaBox (a box written in another origin's coordinates) leaves an empty page that pypdfium2
  refuses to render ("Crop exceeds page dimensions"); poppler shows the MediaBox's content then;
- one that hides much of the page's text: a page cut down to a strip of its sheet, or one half of a two-page
  spread set on one sheet. poppler's pdftoppm (what olmOCR renders with) draws the MediaBox, so a reference run
  reads that text; a print PDF's crop away from its bleed and slug hides a job line or crop marks, tens of
  characters, and keeps its CropBox.
Either way the page is given its MediaBox, in the loaded document (later loads see it), with a note saying so.
Except where a neighbouring page shows another part of the same sheet with a CropBox of its own (a scanned book's
spreads split into pages, a poster tiled): each such page is its part of the sheet, and reading the sheet on each
would repeat its text.
"""

from __future__ import annotations

import pypdfium2 as pdfium

# A visible side shorter than this (points) holds nothing a reader could see: the CropBox misses the page.
MIN_VISIBLE_SIDE_PT = 1.0
# A CropBox showing more than this share of the MediaBox's area trims margins only: no text count is taken.
TRIM_AREA_SHARE = 0.9
# The CropBox hides the page's content when the text outside it is at least this many characters (a slug line or
# a job ticket in a print PDF's bleed is tens) and at least this share of the text inside it.
HIDDEN_TEXT_MIN_CHARS = 200
HIDDEN_TEXT_SHARE = 0.25
# Past this many characters the page's text is not read at all (textlayer/glyph_bounds.py): nothing to count.
MAX_COUNTED_CHARS = 250_000

Rect = tuple[float, float, float, float]


def _box(values: Rect) -> str:
    return f"[{' '.join(f'{v:g}' for v in values)}]"


def _area(rect: Rect) -> float:
    return max(0.0, rect[2] - rect[0]) * max(0.0, rect[3] - rect[1])


def _intersection(a: Rect, b: Rect) -> Rect:
    return max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])


def _chars(text: str) -> int:
    return sum(not c.isspace() for c in text)


def hidden_text(page: pdfium.PdfPage) -> tuple[int, int]:
    """Characters of the page's text outside its CropBox (on the MediaBox) and inside it: (hidden, shown)."""
    media = page.get_mediabox()
    shown = _intersection(page.get_cropbox(), media)
    if _area(shown) >= TRIM_AREA_SHARE * _area(media):
        return 0, 0
    textpage = page.get_textpage()
    try:
        if textpage.count_chars() > MAX_COUNTED_CHARS:
            return 0, 0
        on_sheet = _chars(textpage.get_text_bounded(*media))
        inside = _chars(textpage.get_text_bounded(*shown))
    finally:
        textpage.close()
    return max(0, on_sheet - inside), inside


def _sheet_text(page: pdfium.PdfPage) -> str:
    textpage = page.get_textpage()
    try:
        return "".join(textpage.get_text_bounded(*page.get_mediabox()).split())
    finally:
        textpage.close()


def _part_of_a_split_sheet(page: pdfium.PdfPage, doc: pdfium.PdfDocument, index: int) -> bool:
    """Whether the page before or after shows the same sheet (its MediaBox and text) through another CropBox."""
    crop, media, sheet = page.get_cropbox(), page.get_mediabox(), None
    for k in (index - 1, index + 1):
        if not 0 <= k < len(doc):
            continue
        try:
            other = doc[k]
        except pdfium.PdfiumError:  # a neighbour that does not load shows nothing of this sheet
            continue
        try:
            if other.get_mediabox() != media or other.get_cropbox() == crop:
                continue
            sheet = _sheet_text(page) if sheet is None else sheet
            if _sheet_text(other) == sheet:
                return True
        finally:
            other.close()
    return False


def repair_crop_box(
    page: pdfium.PdfPage, doc: pdfium.PdfDocument | None = None, index: int | None = None
) -> str | None:
    """Give a page whose CropBox misses its MediaBox, or hides much of its text, the MediaBox; a note, or None.
    With the page's `doc` and `index`, a page whose neighbour shows another part of the same sheet keeps its own."""
    crop, media = page.get_cropbox(), page.get_mediabox()
    if min(page.get_size()) >= MIN_VISIBLE_SIDE_PT:
        hidden, inside = hidden_text(page)
        if hidden < max(HIDDEN_TEXT_MIN_CHARS, HIDDEN_TEXT_SHARE * inside):
            return None
        if doc is not None and index is not None and _part_of_a_split_sheet(page, doc, index):
            return None
        page.set_cropbox(*media)
        return (
            f"CropBox {_box(crop)} hides {hidden:,} of the page's {hidden + inside:,} characters: "
            f"read and rendered the MediaBox {_box(media)}"
        )
    page.set_cropbox(*media)
    if min(page.get_size()) < MIN_VISIBLE_SIDE_PT:  # the MediaBox itself is empty: nothing to repair with
        page.set_cropbox(*crop)
        return None
    return f"CropBox and MediaBox do not overlap ({_box(crop)}, {_box(media)}): rendered the MediaBox"
