"""Page furniture: running heads, page numbers, margin stamps and download notices, told from body text.

Decided from position (the top and bottom bands of the page, the side margins), layout (set apart from the body
by a gap, or smaller than the body text) and content (page-number and notice patterns), and, across a document's
pages, repetition (the same line, digits aside, in the same band on several pages). A line in a band that reads
like body text (body-sized, spaced like its neighbours, not repeated, no furniture pattern) is kept.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Sequence

from ocr_pipeline.pdf.reading_order import Box
from ocr_pipeline.pdf.table_html import rows_of

# Share of the page height at the top and bottom where running heads, footers and page numbers live.
BAND_SHARE = 0.1
# Share of the page width on each side where margin stamps live.
SIDE_SHARE = 0.12
# A band line set apart from the body by more than this many line heights is furniture.
APART_HEIGHTS = 1.6
# Text smaller than this share of the body text's height counts as small print.
SMALL_SHARE = 0.9
VERTICAL_MARK = "\u2195"  # glyphs.split_runs prefixes runs of vertical glyphs with this

_PAGE_NUMBER = re.compile(
    r"^\W*(?:page|p\.|pg\.?|seite|página)?\s*(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:of|/|de|von)\s*\d{1,4})?\W*$",
    re.IGNORECASE,
)
_EDGE_NUMBER = re.compile(r"^\W*\d{1,4}\b(?![.,]\d)|\b(?<![.,])\d{1,4}\W*$")
_NOTICE = re.compile(
    r"download(?:ed)?\b|retrieved\b|accessed\b|all rights reserved|©|\(c\)\s*\d{4}|copyright|\brevision\b|"
    r"\bdoi:|https?://|www\.|licen[cs]e|printed in|for personal use|preprint|journal of|vol\.\s*\d|proceedings",
    re.IGNORECASE,
)


def signature(text: str) -> str:
    """A line's text with digits and spacing folded, to recognise a running head on every page."""
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text.lower())).strip()


def _is_apart(row: list[Box], neighbour: list[Box] | None, h: float) -> bool:
    if neighbour is None:
        return True
    top, bottom = min(b.y0 for b in row), max(b.y1 for b in row)
    n_top, n_bottom = min(b.y0 for b in neighbour), max(b.y1 for b in neighbour)
    gap = n_top - bottom if n_top >= bottom else top - n_bottom
    return gap > APART_HEIGHTS * h


def furniture_rows(boxes: Sequence[Box], width: float, height: float, repeated: Iterable[str] = ()) -> set[int]:
    """ids of the boxes that are page furniture; `repeated` holds signatures seen on other pages' bands."""
    boxes = [b for b in boxes if b.text.strip()]
    drop: set[int] = set()
    for b in boxes:
        if b.text.startswith(VERTICAL_MARK) and (b.x1 < SIDE_SHARE * width or b.x0 > (1 - SIDE_SHARE) * width):
            drop.add(id(b))
    body = [b for b in boxes if id(b) not in drop]
    if not body:
        return drop
    h = statistics.median(b.height for b in body)
    repeated = set(repeated)
    rows = rows_of(body)
    for k, row in enumerate(rows):
        top, bottom = min(b.y0 for b in row), max(b.y1 for b in row)
        in_top, in_bottom = bottom < BAND_SHARE * height, top > (1 - BAND_SHARE) * height
        if not (in_top or in_bottom):
            continue
        text = " ".join(b.text.strip() for b in row)
        # The neighbour toward the body: the next row for a head, the previous one for a footer.
        neighbour = rows[k + 1] if in_top and k + 1 < len(rows) else rows[k - 1] if in_bottom and k > 0 else None
        small = max(b.height for b in row) < SMALL_SHARE * h
        large = max(b.height for b in row) > 1.15 * h  # a title, not a running head
        apart = _is_apart(row, neighbour, h)
        numbered = bool(_EDGE_NUMBER.search(text))  # "400 BRITISH HUSBANDRY." or "Annual report 17"
        sig = ("t:" if in_top else "b:") + signature(text)
        if (
            _PAGE_NUMBER.match(text)
            or (sig in repeated and (apart or small))
            or (_NOTICE.search(text) and (apart or small))
            or (apart and not large and (small or numbered))
        ):
            drop.update(id(b) for b in row)
    return drop


def band_signatures(boxes: Sequence[Box], height: float) -> set[str]:
    """Signatures of the lines in a page's top and bottom bands (for repetition across pages)."""
    out = set()
    for row in rows_of([b for b in boxes if b.text.strip()]):
        top, bottom = min(b.y0 for b in row), max(b.y1 for b in row)
        if bottom < BAND_SHARE * height or top > (1 - BAND_SHARE) * height:
            sig = signature(" ".join(b.text.strip() for b in row))
            if len(sig) >= 4:  # top and bottom kept apart: a body line near one margin is no running head
                out.add(("t:" if bottom < BAND_SHARE * height else "b:") + sig)
    return out


def strip_mark(box: Box) -> Box:
    """A kept vertical run without its marker."""
    if not box.text.startswith(VERTICAL_MARK):
        return box
    return Box(box.x0, box.y0, box.x1, box.y1, box.text[len(VERTICAL_MARK) :])
