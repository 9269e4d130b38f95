"""How sure the router must be before a page is read from its text layer instead of the model: one parameter object.

Each threshold was chosen on the tuning part of the olmOCR-Bench history sets (benchmarks/common/olmo_parts.py) and
judged on their check part (benchmarks/quality/bench_route.py; where each value came from is in docs/decisions.md,
"Where routing's bounds came from"). Anything the evidence does not clear goes to the model.
"""

from __future__ import annotations

from dataclasses import dataclass

from ocr_pipeline.layout.param_fields import check_values, doc_field
from ocr_pipeline.settings import ROUTE_MODES

__all__ = ["ROUTE_MODES", "ROUTE_PARAMS", "RouteParams"]


@dataclass(frozen=True)
class RouteParams:
    """Thresholds of routing/decide.py over a page's RouteEvidence."""

    # (a) a trusted, healthy layer of words
    min_words: int = doc_field(30, "words (2+ letters): fewer say too little to judge the layer's language by")
    min_function_word_share: float = doc_field(
        0.08, "word share: the language's function words, at least (shifted or scrambled maps reach 0.043)"
    )
    # (b) the layer covers the page's ink
    max_image_share: float = doc_field(0.5, "page area share: images covering more may be a scan under its layer")
    max_raster_text_lines: int = doc_field(2, "lines: raster text the layer lacks (pasted scans, text in images)")
    # (c) a layout the reader is sure of
    edge_band: float = doc_field(0.04, "page height share: a line the reader kept this near the top or bottom edge")
    lone_zone: float = doc_field(0.12, "page height share: a lone short line kept this near an edge is unsure")
    lone_gap_lines: float = doc_field(1.0, "line heights: ... when this far from every other line")
    lone_width_share: float = doc_field(0.6, "median line width share: ... and narrower than this")

    def __post_init__(self) -> None:
        shares = ("min_function_word_share", "max_image_share", "edge_band", "lone_zone", "lone_width_share")
        check_values(self, shares=shares, ordered=[("edge_band", "lone_zone")])


ROUTE_PARAMS = RouteParams()
