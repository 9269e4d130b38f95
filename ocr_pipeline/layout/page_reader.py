"""One layout pipeline for a page's boxes, whether a text layer's runs or a scan's OCR lines.

spread halves -> furniture (and a letter's margin pieces and letterhead) -> tables -> footnotes -> reading order.
What differs between text layers and scans is a field of PageReadParams (the steps), not a second pipeline; the
thresholds every step reads are LayoutParams (layout_params.py), passed down to each of them. Skew levelling and
the detector's padding are not here: they belong to how OCR boxes are made (layout/scan_layout.py's level_boxes,
called by the CPU engine), so the boxes that arrive here are the glyphs' own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ocr_pipeline.layout.boxes import Box, Rule, bounds
from ocr_pipeline.layout.budget import BudgetSpent, LayoutBudget
from ocr_pipeline.layout.footnotes import footnote_ids
from ocr_pipeline.layout.furniture import furniture_rows, strip_mark
from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS, LayoutParams
from ocr_pipeline.layout.model_regions import Regions, in_furniture_regions
from ocr_pipeline.layout.param_fields import check_values, doc_field
from ocr_pipeline.layout.reading_order import join_line, order_lines
from ocr_pipeline.layout.scan_layout import halves, letterhead, margin_pieces
from ocr_pipeline.layout.simple_order import simple_lines
from ocr_pipeline.layout.table_html import find_tables


@dataclass(frozen=True)
class PageReadParams:
    """What a page's layout does with its boxes: the steps that differ between text layers and scans."""

    spreads: bool = doc_field(False, "cut a two-page spread at its fold and read each side as a page of its own")
    margin_pieces: bool = doc_field(False, "drop a letterhead's corner pieces and notes written upright in the margin")
    letterhead: bool = doc_field(False, "drop a letterhead's small lines above the letter")
    footnotes: bool = doc_field(False, "read footnotes after the body (else where they stand)")
    keep_bare_furniture: bool = doc_field(False, "a page of nothing but furniture keeps it all (the verdict judges it)")
    strip_marks: bool = doc_field(False, "take the vertical-run marker (furniture.py) off the kept boxes")
    space_gap_heights: float = doc_field(0.0, "line heights: boxes of one line this far apart get a space; 0: always")

    def __post_init__(self) -> None:
        check_values(self)


# A PDF's text layer: one page (no spreads), no letterheads read from runs, footnotes after the body; runs touching
# (sub- and superscripts, a word split into runs) join without a space.
TEXT_LAYER_PAGE = PageReadParams(footnotes=True, keep_bare_furniture=True, strip_marks=True, space_gap_heights=0.12)
# A scan's OCR lines: spreads cut, a letter's corner pieces and letterhead dropped; every OCR line a word apart.
SCAN_PAGE = PageReadParams(spreads=True, margin_pieces=True, letterhead=True)


@dataclass
class PageRead:
    """A page's text in reading order, its tables (one box each, HTML text), how many boxes were kept, and each line
    of the text as one box (its extent and its words: where the reader left what it kept)."""

    text: str
    tables: list[Box]
    kept: int
    lines: list[Box] = field(default_factory=list)


def read_page(
    boxes: Sequence[Box],
    rules: Sequence[Rule],
    width: float,
    height: float,
    steps: PageReadParams,
    budget: LayoutBudget | None = None,
    repeated: Iterable[str] = (),
    furniture: Regions = (),
    recurring: frozenset[str] | None = None,
    params: LayoutParams = LAYOUT_PARAMS,
) -> PageRead:
    """The page's boxes less furniture, tables as HTML, footnotes after the body, in reading order, each step as
    `steps` says and with the thresholds of `params`; past the page's `budget` (noted there), all its boxes in the
    simple reading order, furniture and all. `furniture` holds regions a layout model called header or footer,
    `recurring` what a multi-page document shows of them (layout/model_regions.py's in_furniture_regions decides which
    of their boxes go)."""
    budget = budget or LayoutBudget()
    repeated = frozenset(repeated)  # read once for each side of a spread
    try:
        model = (furniture, recurring)
        lines, tables, kept = _lines(boxes, rules, width, height, steps, params, budget, repeated, model)
    except BudgetSpent:
        rest = [b for b in boxes if b.text.strip()]
        lines = simple_lines([strip_mark(b) for b in rest] if steps.strip_marks else rest)
        tables, kept = [], len(boxes)
    joined = [join_line(line, steps.space_gap_heights) for line in lines]
    extents = [Box(*bounds(line), text) for line, text in zip(lines, joined, strict=True) if line]
    return PageRead("\n".join(joined), tables, kept, extents)


def _lines(
    boxes: Sequence[Box],
    rules: Sequence[Rule],
    width: float,
    height: float,
    steps: PageReadParams,
    params: LayoutParams,
    budget: LayoutBudget,
    repeated: Iterable[str],
    model: tuple[Regions, frozenset[str] | None] = ((), None),
) -> tuple[list[list[Box]], list[Box], int]:
    """The page's lines in reading order, its tables and the count of boxes kept; BudgetSpent past the budget."""
    budget.check_runs(len(boxes), params.max_runs)
    lines: list[list[Box]] = []
    tables: list[Box] = []
    kept = 0
    parts = halves(boxes, width, params) if steps.spreads else [(list(boxes), 0.0, width)]
    for part, left, right in parts:
        drop = furniture_rows(part, right - left, height, repeated, left, params)
        drop |= in_furniture_regions(part, *model, height, drop, params)
        if steps.margin_pieces:
            drop |= margin_pieces(part, left, right, height, budget, params)
        if steps.letterhead:
            drop |= letterhead(part, height, params)
        if steps.keep_bare_furniture and all(id(b) in drop for b in part if b.text.strip()):
            # Nothing but furniture (a download stamp over a scan): the row keeps what the PDF holds, the verdict
            # calls it sparse, and the page is OCR'd, where the engine drops the stamp again.
            drop = set()
        part = [b for b in part if id(b) not in drop]
        kept += len(part)
        if steps.strip_marks:
            part = [strip_mark(b) for b in part]
        rest, part_tables = find_tables(part, rules, budget, params)
        tables += part_tables
        # A table under small print keeps that print in the body.
        notes = footnote_ids(rest + part_tables, budget, params) if steps.footnotes else set()
        lines += order_lines([b for b in rest if id(b) not in notes] + part_tables, budget, params)
        if notes:  # read after the body: between two columns they split the sentence that runs on from one to the next
            lines += order_lines([b for b in rest if id(b) in notes], budget, params)
    return lines, tables, kept
