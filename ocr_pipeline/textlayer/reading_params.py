"""Every threshold and switch a PDF page's text layer is read with, in one object passed down from the reader.

ReadingParams bundles the text layer's own thresholds (glyphs, runs, the trust verdict), its formulas' and the
page layout's (layout/layout_params.py), and whether the shipped layout model's header and footer regions join the
furniture rules. page_layout, layout_text, extract_page_text and assess_text_layer take it as an argument (the
documented READING_PARAMS by default), and so do the page rows (pdf/page_rows.py's document_pages), which pass
it on; a variant is made with dataclasses.replace:

    rules_only = replace(READING_PARAMS, layout_model=False)
    every_formula = replace(READING_PARAMS, math=replace(MATH_PARAMS, inline="all"))
"""

from __future__ import annotations

from dataclasses import dataclass

from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS, LayoutParams
from ocr_pipeline.layout.param_fields import check_values, doc_field
from ocr_pipeline.textlayer.math.math_params import MATH_PARAMS, MathParams
from ocr_pipeline.textlayer.textlayer_params import TEXT_LAYER_PARAMS, TextLayerParams


@dataclass(frozen=True)
class ReadingParams:
    """How a text layer is read: its glyphs and verdict, its formulas, its page's layout, and the layout model."""

    text_layer: TextLayerParams = doc_field(TEXT_LAYER_PARAMS, "TextLayerParams: runs, words, bounds, the verdict")
    math: MathParams = doc_field(MATH_PARAMS, "MathParams: formulas found by their fonts, written as LaTeX")
    layout: LayoutParams = doc_field(LAYOUT_PARAMS, "LayoutParams: columns, furniture, tables, footnotes")
    # Off, furniture is judged by the rules alone (the benchmarks compare the two).
    layout_model: bool = doc_field(True, "ask the layout model for header and footer regions beside the rules")

    def __post_init__(self) -> None:
        check_values(self)


# The documented defaults every text layer is read with.
READING_PARAMS = ReadingParams()
