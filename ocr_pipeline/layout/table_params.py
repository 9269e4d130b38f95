"""The thresholds tables (table_html.py) and footnotes (footnotes.py) are found with.

Frozen, documented parameter objects (layout/param_fields.py): each field's meaning and unit in its metadata;
where the values came from is in docs/decisions.md, "Where the layout thresholds came from". Heights are the
page's (or region's) median run height, the body's line height.
"""

from __future__ import annotations

from dataclasses import dataclass

from ocr_pipeline.layout.param_fields import check_values, doc_field


@dataclass(frozen=True)
class TableParams:
    """Thresholds of find_tables: ruled regions, unruled blocks of short cells, and what is prose instead."""

    max_cell_width_share: float = doc_field(0.45, "region width share: a wider run is prose or a spanning title")
    max_rule_gap_heights: float = doc_field(30, "text heights: horizontal rules further apart rule two tables")
    min_plain_rows: int = doc_field(3, "rows: an unruled table has at least this many")
    min_plain_cols: int = doc_field(3, "cells: ... each row of it at least this many")
    max_plain_cell_words: float = doc_field(3.5, "words: unruled cells average at most this many unless numeric")
    min_sentence_words: int = doc_field(6, "words: a run this long with few digits is prose, not an unruled cell")
    max_paragraph_gap_heights: float = doc_field(2.5, "text heights: a line this near a paragraph line may end it")
    max_row_gap_heights: float = doc_field(2.2, "text heights: rows further apart end an unruled table")

    def __post_init__(self) -> None:
        check_values(self, shares=["max_cell_width_share"], positive=["min_plain_rows"])


@dataclass(frozen=True)
class FootnoteParams:
    """Thresholds of footnote_ids: a small block below a gap at the foot of its column, body text above it."""

    small_share: float = doc_field(0.93, "body height share: a footnote line is at most this tall")
    body_share: float = doc_field(0.97, "body height share: the line above a footnote is at least this tall")
    # The body's own leading is narrower than the least gap; a caption under a figure stands further off than the
    # most, below the text above the figure.
    min_gap_heights: float = doc_field(0.5, "body heights: the white above a footnote is at least this")
    max_gap_heights: float = doc_field(3.0, "body heights: ... and at most this")
    max_line_gap_heights: float = doc_field(1.0, "body heights: a note's lines follow at most this far apart")
    # A note beside a title at the head of the page is no footnote.
    max_foot_rise_heights: float = doc_field(3.0, "body heights: a footnote block ends this near the page's last text")
    # A longer run of small print (a reference list set small, continued in the next column) keeps its place.
    max_lines: int = doc_field(12, "lines: a footnote block holds at most this many")

    def __post_init__(self) -> None:
        check_values(
            self,
            shares=("small_share", "body_share"),
            ordered=[("small_share", "body_share"), ("min_gap_heights", "max_gap_heights")],
        )


# The documented defaults: text layers and scans are both read with them (layout_params.LAYOUT_PARAMS holds them).
TABLE_PARAMS = TableParams()
FOOTNOTE_PARAMS = FootnoteParams()
