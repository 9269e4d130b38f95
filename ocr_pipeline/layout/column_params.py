"""The thresholds columns and reading order are found with (gutters, line-number stacks, insets, upright text).

One frozen, documented parameter object, as pdfminer's LAParams: each field's meaning and unit in its metadata.
Lengths are in the region's median line heights unless a field says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from ocr_pipeline.layout.param_fields import check_values, doc_field


@dataclass(frozen=True)
class ColumnParams:
    """Thresholds of the X-Y cut's columns, gutters and the boxes read beside them."""

    min_stack_numbers: int = doc_field(5, "numbers: a line-number stack holds this many, increasing down the page")
    max_number_digits: int = doc_field(4, "digits: a line number has at most this many")
    max_number_width_heights: float = doc_field(2.5, "line heights: a line number is at most this wide")
    max_crossing_share: float = doc_field(0.2, "region height share: boxes crossing a gutter add up to at most this")
    min_side_height_share: float = doc_field(0.4, "region height share: text each side of a crossed gutter, at least")
    max_overhang_share: float = doc_field(0.25, "box width share: a crossing box reaching less over a gutter stays put")
    min_span_side_share: float = doc_field(0.5, "side width share: a box covering this of each side spans the columns")
    inset_size_share: float = doc_field(0.12, "height share: an inset's lines share their size within this")
    inset_align_heights: float = doc_field(0.6, "line heights: ... their left edge or centre within this")
    inset_leading_heights: float = doc_field(0.8, "their heights: ... and follow each other at most this far apart")
    column_gap_line_heights: float = doc_field(0.6, "line heights: a column gap is at least this wide (word gaps ~0.3)")
    min_column_width_share: float = doc_field(0.3, "region width share: each side of a column cut is this wide or more")
    min_column_text_chars: int = doc_field(20, "characters: each side of a column cut holds at least this many")
    river_gap_line_heights: float = doc_field(0.3, "line heights: a gutter down most of the region may be this narrow")
    upright_heights: float = doc_field(3.0, "line heights, and times its width: a box this tall holds upright text")
    lookahead_strips: int = doc_field(12, "strips: a column region's first rows may need this many to show a gutter")
    line_chars: int = doc_field(30, "characters: ... each column they show holds a line of at least this many")
    enclosing_gap_heights: float = doc_field(2.0, "line heights: an inset's columns go on within this above and below")
    min_letter_share: float = doc_field(0.5, "character share: crossed-gutter columns are prose, this many letters")
    region_visits: int = doc_field(200, "box visits: a region's fixed cost to the page's LayoutBudget")

    def __post_init__(self) -> None:
        check_values(
            self,
            shares=(
                "max_crossing_share",
                "min_side_height_share",
                "max_overhang_share",
                "min_span_side_share",
                "inset_size_share",
                "min_column_width_share",
                "min_letter_share",
            ),
            # A gutter a few boxes cross may be narrower than a clean one, never wider.
            ordered=[("river_gap_line_heights", "column_gap_line_heights")],
        )


# The documented defaults: text layers and scans are both read with them (layout_params.LAYOUT_PARAMS holds them).
COLUMN_PARAMS = ColumnParams()
