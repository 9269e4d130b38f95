"""Page furniture: running heads, page numbers, margin stamps and download notices, told from body text.

Decided from position (the top and bottom bands of the page, the side margins), layout (set apart from the body
by a gap, or smaller than the body text) and content (page-number and notice patterns), and, across a document's
pages, repetition (the same line, digits aside, in the same band on several pages). A line in a band that reads
like body text (body-sized, spaced like its neighbours, not repeated, no furniture pattern) is kept.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Iterable, Sequence

from ocr_pipeline.layout.boxes import Box, bottom_of, left_of, right_of, top_of, width_of, x_span, y_span
from ocr_pipeline.layout.furniture_params import FURNITURE_PARAMS as FP
from ocr_pipeline.layout.furniture_patterns import EDGE_NUMBER, NOTICE, has_band_mark, is_page_number
from ocr_pipeline.layout.row_groups import FURNITURE_ROW_RULE, group_rows

VERTICAL_MARK = "\u2195"  # glyphs.split_runs prefixes runs of vertical glyphs with this

Row = list[Box]
_SCRIPT = re.compile(r"[\^_]\{[^}]*\}")
_SENTENCE = re.compile(r"[a-z]{2,}[.!?]$")  # a line ending as a sentence does: body text, not a running head
_PROSE = re.compile(r"[a-z]{2,}[.!?](?:$|\s+[A-Z])")  # a sentence ends at the line's end or inside it


def signature(text: str) -> str:
    """A line's text with digits and spacing folded, to recognise a running head on every page."""
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text.lower())).strip()


def _rows(boxes: Sequence[Box]) -> list[Row]:
    """Boxes grouped into the lines furniture is judged by (row_groups.py), top to bottom, each left to right."""
    return group_rows(boxes, FURNITURE_ROW_RULE)


def _text(row: Row) -> str:
    """The line's text, sub- and superscripts ("^{2}") left out: they are no page numbers."""
    return _SCRIPT.sub("", " ".join(b.text.strip() for b in row))


def _is_apart(row: Row, neighbour: Row | None, h: float) -> bool:
    if neighbour is None:
        return True
    below = top_of(neighbour) >= bottom_of(row)
    gap = top_of(neighbour) - bottom_of(row) if below else top_of(row) - bottom_of(neighbour)
    return gap > FP.apart_heights * h


def _leading(rows: list[Row], h: float) -> float:
    """The body's usual white between one line and the next (none where lines touch or overlap)."""
    gaps = [top_of(b) - bottom_of(a) for a, b in zip(rows, rows[1:], strict=False)]
    gaps = [max(g, 0.0) for g in gaps if -h < g < 2 * h]
    return statistics.median(gaps) if gaps else 0.25 * h


def _edge_blocks(rows: list[Row], height: float, apart: float, from_top: bool) -> list[tuple[list[Row], bool]]:
    """Runs of lines from one page edge inward, split where white sets them apart, each with whether all its
    lines start inside the band; the walk ends at the first run reaching past reach_share (body text)."""
    seq = rows if from_top else rows[::-1]
    out: list[tuple[list[Row], bool]] = []
    block: list[Row] = []

    def depth(row: Row, outer: bool) -> float:  # distance from the page edge to the row's outer or inner edge
        top, bottom = y_span(row)
        return (top if outer else bottom) if from_top else height - (bottom if outer else top)

    for k, row in enumerate(seq):
        if depth(row, outer=False) > FP.reach_share * height:
            break
        block.append(row)
        nxt = seq[k + 1] if k + 1 < len(seq) else None
        gap = None if nxt is None else (top_of(nxt) - bottom_of(row) if from_top else top_of(row) - bottom_of(nxt))
        if gap is None or gap > apart:
            in_band = all(depth(r, outer=True) < FP.band_share * height for r in block)
            out.append((block if from_top else block[::-1], in_band))
            block = []
    return out


def _block_is_furniture(block: list[Row], h: float, span: tuple[float, float], height: float, at_top: bool) -> bool:
    """A set-apart band block is furniture when small, marked (a page number, a notice) or short and set off."""
    size = max(b.height for row in block for b in row)
    outer = block[0] if at_top else block[-1]
    # A page number stands clear of its neighbours (a sub- or superscript digit is glued to its base).
    numbered = any(_numbers(row, h, 1.0) for row in block)
    texts = [_text(row) for row in block]
    # A journal's masthead (publisher notice, URL, fee code, journal, volume, copyright): a band block of more
    # lines than a running head is still furniture when most of its lines carry a band mark.
    if len(block) <= FP.max_masthead_rows and 2 * sum(1 for t in texts if has_band_mark(t)) > len(block):
        return True
    if len(block) > (FP.max_small_block_rows if size < FP.small_share * h else FP.max_block_rows):
        return False
    # Small print in a band is furniture when it stands alone on its line; two or more small lines may be a
    # paragraph set small, or a figure's caption above the footer, and need a mark as well.
    if (size < FP.small_share * h and len(block) == 1) or (numbered and not at_top):
        return True
    top, bottom = top_of(block[0]), bottom_of(block[-1])
    at_edge = top < FP.edge_share * height if at_top else bottom > (1 - FP.edge_share) * height
    # At the sheet's very edge a head may be set a little larger than a small body, unless centred like a title.
    middle = (left_of(outer) + right_of(outer)) / 2
    centred = abs(middle - sum(span) / 2) < FP.centred_share * (span[1] - span[0])
    large = size > (FP.edge_large_share if at_edge and not centred else FP.large_share) * h
    if large and not (numbered or (not at_top and EDGE_NUMBER.search(texts[-1]))):
        return False  # a title (a footer banner, however large, ends in its page number)
    if len(block) == 1 and _is_split(block[0], h, span) and _wordy(texts[0]):
        return True
    # A page number closes the outermost line of a head or foot ("400 BRITISH HUSBANDRY.", "Report 17").
    # (Only on a line of its own: a paragraph's first line may open with a year.)
    if numbered or any(has_band_mark(t) for t in texts) or (len(block) == 1 and EDGE_NUMBER.search(texts[0])):
        return True
    if size < FP.small_share * h:
        return False
    left, right = span
    short = all(width_of(r) < FP.short_share * (right - left) for r in block)
    # A short line flush with the text's left edge (or indented as a paragraph's first line) may be a heading, a
    # title line or a column's last line; one well off that edge (centred, at the right) or at the very edge of
    # the sheet is a running head or a footer.
    off_edge = left_of(outer) > left + FP.off_edge_share * (right - left) or (
        at_edge and not _SENTENCE.search(texts[0])
    )
    # Two short lines at the top (a running head over its date); at the foot one: a column's last lines are short.
    return len(block) <= (2 if at_top else 1) and short and off_edge and all(_wordy(t) for t in texts)


def _wordy(text: str) -> bool:
    """Whether a line reads as words, not as an equation set off on its own line."""
    chars = [c for c in text if not c.isspace()]
    return "=" not in text and sum(c.isalpha() for c in chars) >= FP.wordy_share * max(len(chars), 1)


def _is_split(row: Row, h: float, span: tuple[float, float]) -> bool:
    """A line of short pieces spread across the text width: "Journal name    Vol. 3    17", a running head."""
    width = span[1] - span[0]
    if len(row) < 2 or width_of(row) < FP.short_share * width:
        return False
    gaps = [b.x0 - a.x1 for a, b in zip(row, row[1:], strict=False)]
    return all(b.x1 - b.x0 < FP.split_piece_share * width for b in row) and min(gaps) > FP.number_clear_heights * h


def _outer_row_is_furniture(row: Row, gap: float, page: tuple[float, float, float, float, float], at_top: bool) -> bool:
    """Whether the page's first (or last) line is furniture though it stands close to the body: a running head
    with its page number, a small notice at the sheet's edge, a split head with a date or number in it.
    `page` is (body line height, usual leading, text left, text right, page height); `gap` the white toward the
    body."""
    h, leading, left, right, height = page
    text, size = _text(row), max(b.height for b in row)
    short = width_of(row) < FP.short_share * (right - left)
    if size > FP.large_share * h:
        return False
    if at_top and len(row) <= FP.max_head_pieces and _edge_numbers(row, h):
        return True  # "164    Author NAME": a page number standing clear at one end of the first line
    marked = has_band_mark(text)
    if marked and (size < FP.small_share * h or (short and EDGE_NUMBER.search(text))):
        return True
    if at_top and size < FP.small_share * h and short and top_of(row) < FP.edge_share * height:
        return True
    if _is_split(row, h, (left, right)) and any(c.isdigit() for c in text) and gap > leading + h / 2:
        return True
    return is_page_number(text) and gap > leading + FP.block_apart_heights * h


def _numbers(row: Row, h: float, clear: float = FP.number_clear_heights) -> list[Box]:
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


def _edge_numbers(row: Row, h: float) -> list[Box]:
    """Page-number boxes standing clear of the rest of an outermost line ("Running head ... 17")."""
    return _numbers(row, h) if len(row) > 1 else []


def margin_stamps(boxes: Sequence[Box], left: float, width: float) -> set[int]:
    """ids of vertical runs in a side margin (download stamps, arXiv ids): furniture wherever they stand."""
    lo, hi = left + FP.side_share * width, left + (1 - FP.side_share) * width
    return {id(b) for b in boxes if b.text.startswith(VERTICAL_MARK) and (b.x1 < lo or b.x0 > hi)}


def page_rows(boxes: Sequence[Box], left: float = 0.0, width: float = 0.0) -> list[Row]:
    """The rows furniture is judged by: the page's non-empty boxes less margin stamps, grouped top to bottom."""
    stamps = margin_stamps(boxes, left, width) if width > 0 else set()
    return _rows([b for b in boxes if b.text.strip() and id(b) not in stamps])


def row_text(row: Row) -> str:
    """A row's text as furniture reads it (sub- and superscripts left out)."""
    return _text(row)


def furniture_rows(
    boxes: Sequence[Box], width: float, height: float, repeated: Iterable[str] = (), left: float = 0.0
) -> set[int]:
    """ids of the boxes that are page furniture; `repeated` holds signatures seen on other pages' bands; the page
    (or the side of a spread) runs from `left` to `left + width`."""
    boxes = [b for b in boxes if b.text.strip()]
    drop = margin_stamps(boxes, left, width)
    body = [b for b in boxes if id(b) not in drop]
    if not body:
        return drop
    h = statistics.median(b.height for b in body)
    repeated = set(repeated)
    rows = _rows(body)
    leading = _leading(rows, h)
    apart = leading + FP.block_apart_heights * h
    span = x_span(body)
    drop |= _repeated_edge_rows(rows, height, repeated)
    for at_top in (True, False):
        for block, in_band in _edge_blocks(rows, height, apart, at_top):
            if in_band and _block_is_furniture(block, h, span, height, at_top):
                drop.update(id(b) for row in block for b in row)
    for k, row in enumerate(rows):
        top, bottom, text = top_of(row), bottom_of(row), _text(row)
        if k in (0, len(rows) - 1) and (top < FP.band_share * height or bottom > (1 - FP.band_share) * height):
            drop.update(id(b) for b in _edge_numbers(row, h))
        at_edge = (
            k == 0 and top < FP.outer_share * height,
            k == len(rows) - 1 and bottom > (1 - FP.outer_share) * height,
        )
        for at_top, near in zip((True, False), at_edge, strict=True):
            inner = (rows[k + 1] if k + 1 < len(rows) else None) if at_top else (rows[k - 1] if k > 0 else None)
            gap = float("inf") if inner is None else (top_of(inner) - bottom if at_top else top - bottom_of(inner))
            if near and _outer_row_is_furniture(row, gap, (h, leading, *span, height), at_top):
                drop.update(id(b) for b in row)
        in_top, in_bottom = bottom < FP.band_share * height, top > (1 - FP.band_share) * height
        if not (in_top or in_bottom):
            continue
        # The neighbour toward the body: the next row for a head, the previous one for a footer.
        neighbour = rows[k + 1] if in_top and k + 1 < len(rows) else rows[k - 1] if in_bottom and k > 0 else None
        small = max(b.height for b in row) < FP.small_share * h
        large = max(b.height for b in row) > 1.15 * h  # a title, not a running head
        apart_row = _is_apart(row, neighbour, h)
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


# A layout model's header and footer regions, or how to get them: called only for a page where they could decide a
# line (the model's run is most of a born-digital page's time, and most pages have no line it could still take).
Regions = Sequence[Box] | Callable[[], Sequence[Box]]


def in_furniture_regions(
    boxes: Sequence[Box],
    regions: Regions,
    recurring: frozenset[str] | None,
    height: float,
    decided: Iterable[int] = (),
) -> set[int]:
    """ids of the boxes of lines a layout model's header or footer regions hold.

    The model's word is taken for whole lines of the page's edges only. A region whose centre is not within
    `reach_share` of the top or bottom edge is no running head or footer. A line goes when every one of its boxes
    has its centre in a region (a region over part of a line, a table's first row say, speaks for none of it) and
    it reads as a title or a name does, not as prose (no sentence ending in it) nor as an equation, unless it carries
    a page number or a band mark. In a document of several pages (`recurring` holds the band lines seen on two pages or
    more) a running head shows itself by recurring too: a line that recurs nowhere and carries no mark is a
    chapter's or section's heading at the top of its page, and stays. A one-page document (`recurring` None) has
    only the model's word. `regions` may be a function that gives them: it is called only when some line the rules
    left (`decided`: the ids they dropped) could go by them.
    """
    decided = set(decided)
    candidates = []
    for row in _rows([b for b in boxes if b.text.strip()]):
        if all(id(b) in decided for b in row):
            continue
        text, unscripted = " ".join(b.text.strip() for b in row), _text(row)
        marked = is_page_number(unscripted) or has_band_mark(text)
        band = "t:" if bottom_of(row) < height / 2 else "b:"
        recurs = recurring is None or band + signature(text) in recurring
        if marked or (recurs and _wordy(text) and not _PROSE.search(unscripted)):
            candidates.append(row)
    if not candidates:
        return set()
    reach = FP.reach_share * height
    plausible = [r for r in (regions() if callable(regions) else regions) if r.yc < reach or r.yc > height - reach]
    drop: set[int] = set()
    for row in candidates:
        if all(any(r.x0 <= (b.x0 + b.x1) / 2 <= r.x1 and r.y0 <= b.yc <= r.y1 for r in plausible) for b in row):
            drop.update(id(b) for b in row)
    return drop


def _place(row: Row, height: float) -> int:
    """Where a line stands on its page, in steps of `place_share` of the page height (its centre)."""
    return round((top_of(row) + bottom_of(row)) / 2 / (FP.place_share * height))


def band_signatures(boxes: Sequence[Box], height: float) -> set[str]:
    """Signatures of the lines in a page's top and bottom bands (for repetition across pages): each line's text
    signature by band ("t:" or "b:") and, apart, with its place ("t@3:"), which a running head keeps from page to
    page and a body line that happens to recur does not."""
    out = set()
    for row in _rows([b for b in boxes if b.text.strip()]):
        top, bottom = y_span(row)
        if bottom < FP.band_share * height or top > (1 - FP.band_share) * height:
            sig = signature(" ".join(b.text.strip() for b in row))
            if len(sig) >= 4:  # top and bottom kept apart: a body line near one margin is no running head
                band = "t" if bottom < FP.band_share * height else "b"
                out |= {f"{band}:{sig}", f"{band}@{_place(row, height)}:{sig}"}
    return out


def _repeated_in_place(row: Row, height: float, band: str, repeated: set[str]) -> bool:
    """Whether the line stands, same text (digits aside) and same place give or take a step, on other pages too."""
    sig, place = signature(_text(row)), _place(row, height)
    return any(f"{band}@{p}:{sig}" in repeated for p in (place - 1, place, place + 1))


def _repeated_edge_rows(rows: list[Row], height: float, repeated: set[str]) -> set[int]:
    """ids of the boxes of a page's outermost lines, top and bottom, that recur in place across the document's
    pages: running heads and footers, however close to the body and however large their type."""
    drop: set[int] = set()
    for band, seq in (("t", rows), ("b", rows[::-1])):
        for row in seq[: FP.max_block_rows]:
            top, bottom = y_span(row)
            in_band = bottom < FP.band_share * height if band == "t" else top > (1 - FP.band_share) * height
            if not (in_band and _repeated_in_place(row, height, band, repeated)):
                break
            drop.update(id(b) for b in row)
    return drop


def strip_mark(box: Box) -> Box:
    """A kept vertical run without its marker."""
    if not box.text.startswith(VERTICAL_MARK):
        return box
    return Box(box.x0, box.y0, box.x1, box.y1, box.text[len(VERTICAL_MARK) :])
