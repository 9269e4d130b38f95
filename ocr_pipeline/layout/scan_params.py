"""The thresholds a scanned page's layout is read with (skew, detector padding, spreads, margin pieces).

One frozen, documented parameter object, as pdfminer's LAParams: each field's meaning and unit in its metadata;
where the values came from (the benchmark runs that chose them) is in docs/decisions.md, "Where the layout
thresholds came from".
"""

from __future__ import annotations

from dataclasses import dataclass

from ocr_pipeline.layout.param_fields import check_values, doc_field


@dataclass(frozen=True)
class ScanParams:
    """Thresholds of a scanned page's layout before furniture and reading order."""

    slope_line_ratio: float = doc_field(4.0, "width / height: a quad this much wider than tall shows the page's slope")
    min_slope_lines: int = doc_field(3, "lines: at least this many such lines to trust a slope")
    min_slope: float = doc_field(0.002, "rise / run: below this the page is level and boxes stay as they are (0.1 deg)")
    end_pad_heights: float = doc_field(0.3, "box heights: the detector's padding beyond the glyphs at each line end")
    edge_pad_heights: float = doc_field(0.2, "box heights: the detector's padding above and below the glyphs")
    fold_reach_share: float = doc_field(0.15, "page width share: a spread's fold lies this near the middle")
    fold_gap_heights: float = doc_field(1.0, "line heights: the white band at the fold is at least this wide")
    fold_min_text_share: float = doc_field(0.2, "share of the page's characters: each side of a fold holds this many")
    fold_min_span_share: float = doc_field(0.5, "share of the text height: each side of a fold spans this much")
    fold_min_lines: int = doc_field(5, "lines: each side of a fold holds at least this many long lines")
    fold_line_heights: float = doc_field(5.0, "line heights: a long line (for fold_min_lines) is at least this long")
    corner_top_share: float = doc_field(0.12, "page height share: letterhead corner pieces lie in this top band")
    corner_side_share: float = doc_field(0.35, "page width share: ... in this outer share of the width on either side")
    corner_max_heights: float = doc_field(0.85, "body line heights: a corner piece is at most this tall (a date stays)")
    heading_size: float = doc_field(1.5, "times a corner piece's height: a letterhead's name below it is this tall")
    title_heights: float = doc_field(2.0, "body line heights: a letterhead's name is at least this tall")
    title_top_share: float = doc_field(0.2, "page height share: ... and lies within this top band")
    letterhead_rows: int = doc_field(6, "rows: a small-set letterhead is a top block of at most this many")
    letterhead_width_share: float = doc_field(0.5, "text width share: each letterhead row is narrower than this")
    small_share: float = doc_field(0.9, "body line height share: most letterhead rows are set smaller than this")
    letterhead_apart_heights: float = doc_field(1.0, "line heights: white between a letterhead and the letter exceeds")

    def __post_init__(self) -> None:
        check_values(
            self,
            shares=(
                "fold_reach_share",
                "fold_min_text_share",
                "fold_min_span_share",
                "corner_top_share",
                "corner_side_share",
                "title_top_share",
                "letterhead_width_share",
                "small_share",
            ),
            # A slope is the median of at least one line's.
            positive=["min_slope_lines"],
            ordered=[("corner_top_share", "title_top_share")],
        )


# The documented defaults the OCR engine reads scans with (layout_params.LAYOUT_PARAMS holds them).
SCAN_PARAMS = ScanParams()
