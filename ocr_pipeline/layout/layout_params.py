"""Every threshold a page's layout is read with, in one object passed down from read_page, as pdfminer's LAParams.

LayoutParams bundles the documented parameter objects of the layout's steps (columns and reading order, furniture,
tables, footnotes, a scan's own layout) and the page's size bound. Each function that reads a threshold takes the
bundle as an argument, its default the documented LAYOUT_PARAMS; a variant is made with dataclasses.replace, and
every object checks its values when made (param_fields.check_values).

    strict = replace(LAYOUT_PARAMS, furniture=replace(FURNITURE_PARAMS, band_share=0.08))
    read_page(boxes, rules, width, height, TEXT_LAYER_PAGE, params=strict)
"""

from __future__ import annotations

from dataclasses import dataclass

from ocr_pipeline.layout.column_params import COLUMN_PARAMS, ColumnParams
from ocr_pipeline.layout.furniture_params import FURNITURE_PARAMS, FurnitureParams
from ocr_pipeline.layout.param_fields import check_values, doc_field
from ocr_pipeline.layout.scan_params import SCAN_PARAMS, ScanParams
from ocr_pipeline.layout.table_params import FOOTNOTE_PARAMS, TABLE_PARAMS, FootnoteParams, TableParams


@dataclass(frozen=True)
class LayoutParams:
    """The thresholds of every step of a page's layout (layout/page_reader.py), and the page's size bound."""

    columns: ColumnParams = doc_field(COLUMN_PARAMS, "ColumnParams: gutters, line-number stacks, insets, upright text")
    furniture: FurnitureParams = doc_field(FURNITURE_PARAMS, "FurnitureParams: running heads, page numbers, stamps")
    tables: TableParams = doc_field(TABLE_PARAMS, "TableParams: ruled and unruled tables, and prose that is none")
    footnotes: FootnoteParams = doc_field(FOOTNOTE_PARAMS, "FootnoteParams: small print at the foot of a column")
    scan: ScanParams = doc_field(SCAN_PARAMS, "ScanParams: a scan's skew, spreads, letterheads and margin pieces")
    # The densest page of ../shared/data has 609 runs.
    max_runs: int = doc_field(20_000, "boxes: a page of more is read in simple order, no furniture, tables, columns")

    def __post_init__(self) -> None:
        check_values(self)


# The documented defaults: text layers and scans are both read with them.
LAYOUT_PARAMS = LayoutParams()
