"""Page furniture: running heads, page numbers, margin stamps and download notices, told from body text.

Decided from position (the top and bottom bands of the page, the side margins), layout (set apart from the body
by a gap, or smaller than the body text) and content (page-number and notice patterns), and, across a document's
pages, repetition (the same line, digits aside, in the same band on several pages: band_lines.py). A line in a band
that reads like body text (body-sized, spaced like its neighbours, not repeated, no furniture pattern) is kept. A
layout model's regions may take more lines (model_regions.py).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Sequence

from ocr_pipeline.layout.band_lines import Row, line_rows, repeated_edge_rows, row_text, signature
from ocr_pipeline.layout.boxes import Box, bottom_of, left_of, right_of, top_of, width_of, x_span, y_span
from ocr_pipeline.layout.furniture_patterns import EDGE_NUMBER, NOTICE, has_band_mark, is_page_number
from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS, LayoutParams

VERTICAL_MARK = "\u2195"  # glyphs.split_runs prefixes runs of vertical glyphs with this
_SENTENCE = re.compile(r"[a-z]{2,}[.!?]$")  # a line ending as a sentence does: body text, not a running head


def _is_apart(row: Row, neighbour: Row | None, h: float, params: LayoutParams) -> bool:
    if neighbour is None:
        return True
    below = top_of(neighbour) >= bottom_of(row)
    gap = top_of(neighbour) - bottom_of(row) if below else top_of(row) - bottom_of(neighbour)
    return gap > params.furniture.apart_heights * h


def _leading(rows: list[Row], h: float) -> float:
    """The body's usual white between one line and the next (none where lines touch or overlap)."""
    gaps = [top_of(b) - bottom_of(a) for a, b in zip(rows, rows[1:], strict=False)]
    gaps = [max(g, 0.0) for g in gaps if -h < g < 2 * h]
    return statistics.median(gaps) if gaps else 0.25 * h


def _edge_blocks(
    rows: list[Row], height: float, apart: float, from_top: bool, params: LayoutParams
) -> list[tuple[list[Row], bool]]:
    """Runs of lines from one page edge inward, split where white sets them apart, each with whether all its
    lines start inside the band; the walk ends at the first run reaching past reach_share (body text)."""
    seq = rows if from_top else rows[::-1]
    out: list[tuple[list[Row], bool]] = []
    block: list[Row] = []

    def depth(row: Row, outer: bool) -> float:  # distance from the page edge to the row's outer or inner edge
        top, bottom = y_span(row)
        return (top if outer else bottom) if from_top else height - (bottom if outer else top)

    for k, row in enumerate(seq):
        if depth(row, outer=False) > params.furniture.reach_share * height:
            break
        block.append(row)
        nxt = seq[k + 1] if k + 1 < len(seq) else None
        gap = None if nxt is None else (top_of(nxt) - bottom_of(row) if from_top else top_of(row) - bottom_of(nxt))
        if gap is None or gap > apart:
            in_band = all(depth(r, outer=True) < params.furniture.band_share * height for r in block)
            out.append((block if from_top else block[::-1], in_band))
            block = []
    return out


def _block_is_furniture(
    block: list[Row], h: float, span: tuple[float, float], height: float, at_top: bool, params: LayoutParams
) -> bool:
    """A set-apart band block is furniture when small, marked (a page number, a notice) or short and set off."""
    size = max(b.height for row in block for b in row)
    outer = block[0] if at_top else block[-1]
    # A page number stands clear of its neighbours (a sub- or superscript digit is glued to its base).
    numbered = any(_numbers(row, h, 1.0) for row in block)
    texts = [row_text(row) for row in block]
    # A journal's masthead (publisher notice, URL, fee code, journal, volume, copyright): a band block of more
    # lines than a running head is still furniture when most of its lines carry a band mark.
    if len(block) <= params.furniture.max_masthead_rows and 2 * sum(1 for t in texts if has_band_mark(t)) > len(block):
        return True
    if len(block) > (
        params.furniture.max_small_block_rows
        if size < params.furniture.small_share * h
        else params.furniture.max_block_rows
    ):
        return False
    # Small print in a band is furniture when it stands alone on its line; two or more small lines may be a
    # paragraph set small, or a figure's caption above the footer, and need a mark as well.
    if (size < params.furniture.small_share * h and len(block) == 1) or (numbered and not at_top):
        return True
    top, bottom = top_of(block[0]), bottom_of(block[-1])
    at_edge = (
        top < params.furniture.edge_share * height if at_top else bottom > (1 - params.furniture.edge_share) * height
    )
    # At the sheet's very edge a head may be set a little larger than a small body, unless centred like a title.
    middle = (left_of(outer) + right_of(outer)) / 2
    centred = abs(middle - sum(span) / 2) < params.furniture.centred_share * (span[1] - span[0])
    large = size > (params.furniture.edge_large_share if at_edge and not centred else params.furniture.large_share) * h
    if large and not (numbered or (not at_top and EDGE_NUMBER.search(texts[-1]))):
        return False  # a title (a footer banner, however large, ends in its page number)
    if len(block) == 1 and _is_split(block[0], h, span, params) and wordy(texts[0], params):
        return True
    # A page number closes the outermost line of a head or foot ("400 BRITISH HUSBANDRY.", "Report 17").
    # (Only on a line of its own: a paragraph's first line may open with a year.)
    if numbered or any(has_band_mark(t) for t in texts) or (len(block) == 1 and EDGE_NUMBER.search(texts[0])):
        return True
    if size < params.furniture.small_share * h:
        return False
    left, right = span
    short = all(width_of(r) < params.furniture.short_share * (right - left) for r in block)
    # A short line flush with the text's left edge (or indented as a paragraph's first line) may be a heading, a
    # title line or a column's last line; one well off that edge (centred, at the right) or at the very edge of
    # the sheet is a running head or a footer.
    off_edge = left_of(outer) > left + params.furniture.off_edge_share * (right - left) or (
        at_edge and not _SENTENCE.search(texts[0])
    )
    # Two short lines at the top (a running head over its date); at the foot one: a column's last lines are short.
    return len(block) <= (2 if at_top else 1) and short and off_edge and all(wordy(t, params) for t in texts)


def wordy(text: str, params: LayoutParams = LAYOUT_PARAMS) -> bool:
    """Whether a line reads as words, not as an equation set off on its own line."""
    chars = [c for c in text if not c.isspace()]
    return "=" not in text and sum(c.isalpha() for c in chars) >= params.furniture.wordy_share * max(len(chars), 1)


def _is_split(row: Row, h: float, span: tuple[float, float], params: LayoutParams) -> bool:
    """A line of short pieces spread across the text width: "Journal name    Vol. 3    17", a running head."""
    width = span[1] - span[0]
    if len(row) < 2 or width_of(row) < params.furniture.short_share * width:
        return False
    gaps = [b.x0 - a.x1 for a, b in zip(row, row[1:], strict=False)]
    return (
        all(b.x1 - b.x0 < params.furniture.split_piece_share * width for b in row)
        and min(gaps) > params.furniture.number_clear_heights * h
    )


def _outer_row_is_furniture(
    row: Row, gap: float, page: tuple[float, float, float, float, float], at_top: bool, params: LayoutParams
) -> bool:
    """Whether the page's first (or last) line is furniture though it stands close to the body: a running head
    with its page number, a small notice at the sheet's edge, a split head with a date or number in it.
    `page` is (body line height, usual leading, text left, text right, page height); `gap` the white toward the
    body."""
    h, leading, left, right, height = page
    text, size = row_text(row), max(b.height for b in row)
    short = width_of(row) < params.furniture.short_share * (right - left)
    if size > params.furniture.large_share * h:
        return False
    if at_top and len(row) <= params.furniture.max_head_pieces and _edge_numbers(row, h, params):
        return True  # "164    Author NAME": a page number standing clear at one end of the first line
    marked = has_band_mark(text)
    if marked and (size < params.furniture.small_share * h or (short and EDGE_NUMBER.search(text))):
        return True
    if (
        at_top
        and size < params.furniture.small_share * h
        and short
        and top_of(row) < params.furniture.edge_share * height
    ):
        return True
    if _is_split(row, h, (left, right), params) and any(c.isdigit() for c in text) and gap > leading + h / 2:
        return True
    return is_page_number(text) and gap > leading + params.furniture.block_apart_heights * h


def _numbers(row: Row, h: float, clear: float) -> list[Box]:
    """Page-number boxes standing `clear` line heights clear of the rest of their line (or alone on it)."""
    out = []
    for i, b in enumerate(row):
        if not is_page_number(b.text):
            continue
        left = b.x0 - row[i - 1].x1 if i > 0 else float("inf")
        right = row[i + 1].x0 - b.x1 if i + 1 < len(row) else float("inf")
        if min(left, right) > clear * h:
            out.append(b)
    return out


def _edge_numbers(row: Row, h: float, params: LayoutParams) -> list[Box]:
    """Page-number boxes standing clear of the rest of an outermost line ("Running head ... 17")."""
    return _numbers(row, h, params.furniture.number_clear_heights) if len(row) > 1 else []


def margin_stamps(boxes: Sequence[Box], left: float, width: float, params: LayoutParams = LAYOUT_PARAMS) -> set[int]:
    """ids of vertical runs in a side margin (download stamps, arXiv ids): furniture wherever they stand."""
    lo, hi = left + params.furniture.side_share * width, left + (1 - params.furniture.side_share) * width
    return {id(b) for b in boxes if b.text.startswith(VERTICAL_MARK) and (b.x1 < lo or b.x0 > hi)}


def page_rows(
    boxes: Sequence[Box], left: float = 0.0, width: float = 0.0, params: LayoutParams = LAYOUT_PARAMS
) -> list[Row]:
    """The rows furniture is judged by: the page's non-empty boxes less margin stamps, grouped top to bottom."""
    stamps = margin_stamps(boxes, left, width, params) if width > 0 else set()
    return line_rows([b for b in boxes if b.text.strip() and id(b) not in stamps])


def furniture_rows(
    boxes: Sequence[Box],
    width: float,
    height: float,
    repeated: Iterable[str] = (),
    left: float = 0.0,
    params: LayoutParams = LAYOUT_PARAMS,
) -> set[int]:
    """ids of the boxes that are page furniture; `repeated` holds signatures seen on other pages' bands; the page
    (or the side of a spread) runs from `left` to `left + width`."""
    boxes = [b for b in boxes if b.text.strip()]
    drop = margin_stamps(boxes, left, width, params)
    body = [b for b in boxes if id(b) not in drop]
    if not body:
        return drop
    h = statistics.median(b.height for b in body)
    repeated = set(repeated)
    rows = line_rows(body)
    leading = _leading(rows, h)
    apart = leading + params.furniture.block_apart_heights * h
    span = x_span(body)
    drop |= repeated_edge_rows(rows, height, repeated, params)
    for at_top in (True, False):
        for block, in_band in _edge_blocks(rows, height, apart, at_top, params):
            if in_band and _block_is_furniture(block, h, span, height, at_top, params):
                drop.update(id(b) for row in block for b in row)
    for k, row in enumerate(rows):
        top, bottom, text = top_of(row), bottom_of(row), row_text(row)
        if k in (0, len(rows) - 1) and (
            top < params.furniture.band_share * height or bottom > (1 - params.furniture.band_share) * height
        ):
            drop.update(id(b) for b in _edge_numbers(row, h, params))
        at_edge = (
            k == 0 and top < params.furniture.outer_share * height,
            k == len(rows) - 1 and bottom > (1 - params.furniture.outer_share) * height,
        )
        for at_top, near in zip((True, False), at_edge, strict=True):
            inner = (rows[k + 1] if k + 1 < len(rows) else None) if at_top else (rows[k - 1] if k > 0 else None)
            gap = float("inf") if inner is None else (top_of(inner) - bottom if at_top else top - bottom_of(inner))
            if near and _outer_row_is_furniture(row, gap, (h, leading, *span, height), at_top, params):
                drop.update(id(b) for b in row)
        in_top, in_bottom = (
            bottom < params.furniture.band_share * height,
            top > (1 - params.furniture.band_share) * height,
        )
        if not (in_top or in_bottom):
            continue
        # The neighbour toward the body: the next row for a head, the previous one for a footer.
        neighbour = rows[k + 1] if in_top and k + 1 < len(rows) else rows[k - 1] if in_bottom and k > 0 else None
        small = max(b.height for b in row) < params.furniture.small_share * h
        large = max(b.height for b in row) > params.furniture.title_share * h  # a title, not a running head
        apart_row = _is_apart(row, neighbour, h, params)
        numbered = bool(EDGE_NUMBER.search(text))  # "400 BRITISH HUSBANDRY." or "Annual report 17"
        sig = ("t:" if in_top else "b:") + signature(text)
        if (
            is_page_number(text)
            or (sig in repeated and (apart_row or small))
            or (NOTICE.search(text) and (apart_row or small))
            or (apart_row and not large and (small or numbered))
        ):
            drop.update(id(b) for b in row)
    return drop


def strip_mark(box: Box) -> Box:
    """A kept vertical run without its marker."""
    if not box.text.startswith(VERTICAL_MARK):
        return box
    return Box(box.x0, box.y0, box.x1, box.y1, box.text[len(VERTICAL_MARK) :])
