"""The thresholds page furniture (running heads, page numbers, stamps, mastheads) is told from body text with.

One frozen, documented parameter object (layout/param_fields.py): each field's meaning and unit in its metadata;
where the values came from is in docs/decisions.md, "Where the layout thresholds came from". Heights are the
page's body line height (the median box height) unless a field says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from ocr_pipeline.layout.param_fields import check_values, doc_field


@dataclass(frozen=True)
class FurnitureParams:
    """Thresholds of furniture_rows: the page's bands and margins, and the size, gaps and shape of a band's lines."""

    # Where furniture stands on the page.
    band_share: float = doc_field(0.1, "page height share: running heads, footers and page numbers live this near")
    side_share: float = doc_field(0.12, "page width share: margin stamps live this near either side")
    edge_share: float = doc_field(0.06, "page height share: at the very top, nothing but furniture is set this near")
    reach_share: float = doc_field(0.25, "page height share: line runs from each edge are looked at this deep")
    # Wide top margins put a running head well below the top band.
    outer_share: float = doc_field(0.16, "page height share: the first and last lines are looked at this near")
    # A running head stands in the same place on every page it is printed on; a recurring body line moves.
    place_share: float = doc_field(0.005, "page height share: a step of where a line stands (one either way: same)")
    # How far a band line or block stands off the body.
    apart_heights: float = doc_field(1.6, "line heights: a band line set this far off the body is furniture")
    # A running head stands a blank line or more off the text it heads.
    block_apart_heights: float = doc_field(1.0, "line heights: a band block's white exceeds the leading by this")
    number_clear_heights: float = doc_field(3.0, "line heights: a page number stands this clear of its line's rest")
    # Size against the body.
    small_share: float = doc_field(0.9, "body height share: text smaller than this is small print")
    # A line of its own in a band is a title sooner than a block of them is.
    title_share: float = doc_field(1.15, "body height share: a band line set apart and taller is a title, kept")
    large_share: float = doc_field(1.3, "body height share: text taller is a title, unless it carries a page number")
    edge_large_share: float = doc_field(1.5, "body height share: ... a head at the sheet's edge, not centred, may be")
    # Blocks of band lines.
    max_block_rows: int = doc_field(3, "lines: a set-apart band block of body-sized lines has at most this many")
    max_small_block_rows: int = doc_field(6, "lines: ... one of small print (a masthead) at most this many")
    max_masthead_rows: int = doc_field(8, "lines: ... one most of whose lines carry a band mark at most this many")
    # A table's first row may hold more pieces than a running head.
    max_head_pieces: int = doc_field(3, "boxes: a running head (title, page number, date) has at most this many")
    # The shape of a line.
    short_share: float = doc_field(0.6, "text width share: a line narrower than this is short")
    split_piece_share: float = doc_field(0.4, "text width share: each piece of a split running head is narrower")
    off_edge_share: float = doc_field(0.2, "text width share: a short line this far in is centred or set right")
    centred_share: float = doc_field(0.1, "text width share: a line whose middle is this near the text's is centred")
    wordy_share: float = doc_field(0.5, "character share: a line with fewer letters is an equation or a number row")
    # Repetition across a document's pages (pdf/page_rows.py counts the band lines of every page).
    repeat_share: float = doc_field(0.25, "page share: a band line on this many of the pages (two at least) recurs")

    def __post_init__(self) -> None:
        check_values(
            self,
            shares=(
                "band_share",
                "side_share",
                "edge_share",
                "reach_share",
                "outer_share",
                "place_share",
                "small_share",
                "short_share",
                "split_piece_share",
                "off_edge_share",
                "centred_share",
                "wordy_share",
                "repeat_share",
            ),
            positive=["place_share"],  # the step a line's place is counted in
            ordered=[
                ("edge_share", "band_share"),
                ("band_share", "reach_share"),
                ("outer_share", "reach_share"),
                ("small_share", "title_share"),
                ("title_share", "large_share"),
                ("large_share", "edge_large_share"),
                ("max_block_rows", "max_small_block_rows"),
                ("max_small_block_rows", "max_masthead_rows"),
            ],
        )


# The documented defaults: text layers and scans are both read with them (layout_params.LAYOUT_PARAMS holds them).
FURNITURE_PARAMS = FurnitureParams()
