"""The lines page furniture is judged by, and their repetition across a document's pages.

A line is a row of the page's boxes (row_groups.py), read without its sub- and superscripts ("^{2}": no page
number). A running head or footer recurs: the same text, digits aside (its signature), in the same band and at the
same place on several pages, where a body line that happens to recur moves. The page rows (pdf/page_rows.py) count
each page's band signatures over the document; furniture.py drops the outermost lines that recur in place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ocr_pipeline.layout.boxes import Box, y_span
from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS, LayoutParams
from ocr_pipeline.layout.row_groups import FURNITURE_ROW_RULE, group_rows

Row = list[Box]
_SCRIPT = re.compile(r"[\^_]\{[^}]*\}")


def line_rows(boxes: Sequence[Box]) -> list[Row]:
    """Boxes grouped into the lines furniture is judged by (row_groups.py), top to bottom, each left to right."""
    return group_rows(boxes, FURNITURE_ROW_RULE)


def row_text(row: Row) -> str:
    """The line's text, sub- and superscripts ("^{2}") left out: they are no page numbers."""
    return _SCRIPT.sub("", " ".join(b.text.strip() for b in row))


def signature(text: str) -> str:
    """A line's text with digits and spacing folded, to recognise a running head on every page."""
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text.lower())).strip()


def _place(row: Row, height: float, params: LayoutParams) -> int:
    """Where a line stands on its page, in steps of `place_share` of the page height (its centre)."""
    top, bottom = y_span(row)
    return round((top + bottom) / 2 / (params.furniture.place_share * height))


def band_signatures(boxes: Sequence[Box], height: float, params: LayoutParams = LAYOUT_PARAMS) -> set[str]:
    """Signatures of the lines in a page's top and bottom bands (for repetition across pages): each line's text
    signature by band ("t:" or "b:") and, apart, with its place ("t@3:"), which a running head keeps from page to
    page and a body line that happens to recur does not."""
    out = set()
    band_share = params.furniture.band_share
    for row in line_rows([b for b in boxes if b.text.strip()]):
        top, bottom = y_span(row)
        if bottom < band_share * height or top > (1 - band_share) * height:
            sig = signature(" ".join(b.text.strip() for b in row))
            if len(sig) >= 4:  # top and bottom kept apart: a body line near one margin is no running head
                band = "t" if bottom < band_share * height else "b"
                out |= {f"{band}:{sig}", f"{band}@{_place(row, height, params)}:{sig}"}
    return out


def _repeated_in_place(row: Row, height: float, band: str, repeated: set[str], params: LayoutParams) -> bool:
    """Whether the line stands, same text (digits aside) and same place give or take a step, on other pages too."""
    sig, place = signature(row_text(row)), _place(row, height, params)
    return any(f"{band}@{p}:{sig}" in repeated for p in (place - 1, place, place + 1))


def repeated_edge_rows(rows: list[Row], height: float, repeated: set[str], params: LayoutParams) -> set[int]:
    """ids of the boxes of a page's outermost lines, top and bottom, that recur in place across the document's
    pages (`repeated`: band_signatures seen on other pages): running heads and footers, however close to the body
    and however large their type."""
    drop: set[int] = set()
    band_share = params.furniture.band_share
    for band, seq in (("t", rows), ("b", rows[::-1])):
        for row in seq[: params.furniture.max_block_rows]:
            top, bottom = y_span(row)
            in_band = bottom < band_share * height if band == "t" else top > (1 - band_share) * height
            if not (in_band and _repeated_in_place(row, height, band, repeated, params)):
                break
            drop.update(id(b) for b in row)
    return drop
