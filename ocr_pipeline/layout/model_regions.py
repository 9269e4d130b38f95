"""A layout model's header and footer regions, judged against a page's lines: which lines they take as furniture.

The regions come from outside the layout (regions/detector.py on the rendered page, mapped to its points by
pdf/page_regions.py); here they are only boxes. They speak for whole lines at the page's edges that the furniture
rules (furniture.py) left and that read as a running head does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ocr_pipeline.layout.band_lines import line_rows, row_text, signature
from ocr_pipeline.layout.boxes import Box, bottom_of
from ocr_pipeline.layout.furniture import wordy
from ocr_pipeline.layout.furniture_patterns import has_band_mark, is_page_number
from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS, LayoutParams

_PROSE = re.compile(r"[a-z]{2,}[.!?](?:$|\s+[A-Z])")  # a sentence ends at the line's end or inside it

# A layout model's header and footer regions, or how to get them: called only for a page where they could decide a
# line (the model's run is most of a born-digital page's time, and most pages have no line it could still take).
Regions = Sequence[Box] | Callable[[], Sequence[Box]]


def in_furniture_regions(
    boxes: Sequence[Box],
    regions: Regions,
    recurring: frozenset[str] | None,
    height: float,
    decided: Iterable[int] = (),
    params: LayoutParams = LAYOUT_PARAMS,
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
    for row in line_rows([b for b in boxes if b.text.strip()]):
        if all(id(b) in decided for b in row):
            continue
        text, unscripted = " ".join(b.text.strip() for b in row), row_text(row)
        marked = is_page_number(unscripted) or has_band_mark(text)
        band = "t:" if bottom_of(row) < height / 2 else "b:"
        recurs = recurring is None or band + signature(text) in recurring
        if marked or (recurs and wordy(text, params) and not _PROSE.search(unscripted)):
            candidates.append(row)
    if not candidates:
        return set()
    reach = params.furniture.reach_share * height
    plausible = [r for r in (regions() if callable(regions) else regions) if r.yc < reach or r.yc > height - reach]
    drop: set[int] = set()
    for row in candidates:
        if all(any(r.x0 <= (b.x0 + b.x1) / 2 <= r.x1 and r.y0 <= b.yc <= r.y1 for r in plausible) for b in row):
            drop.update(id(b) for b in row)
    return drop
