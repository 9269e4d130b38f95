"""The routing decision: a page is read from its text layer only when every piece of its evidence clears its bound.

(a) the layer is trusted and healthy: the reader's verdict, no character that no font maps, words of a language;
(b) it covers the page's ink: no invisible text, no image large enough to be a scan under it, no raster text outside
its glyphs; (c) the reader is sure of the layout: no table, no formula, no line kept at the page's very edge or alone
near it (a running head or page number the furniture rules did not take), no layout bound that fired. Anything else
goes to the model, with every reason recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ocr_pipeline.routing.evidence import RouteEvidence
from ocr_pipeline.routing.params import ROUTE_PARAMS, RouteParams

TEXT_LAYER = "text_layer"
MODEL = "model"


@dataclass(frozen=True)
class RouteDecision:
    """Where a page goes (TEXT_LAYER or MODEL) and why it cannot be read from its layer (empty when it can)."""

    route: str
    reasons: list[str] = field(default_factory=list)

    @property
    def routed(self) -> bool:
        """Whether the page is read from its text layer."""
        return self.route == TEXT_LAYER


def decide(evidence: RouteEvidence | None, params: RouteParams = ROUTE_PARAMS) -> RouteDecision:
    """The page's route from its evidence; a page without evidence goes to the model."""
    if evidence is None:
        return RouteDecision(MODEL, ["no routing evidence (read without it)"])
    reasons = [*_layer(evidence, params), *_ink(evidence, params), *_layout(evidence, params)]
    return RouteDecision(MODEL if reasons else TEXT_LAYER, reasons)


def _layer(e: RouteEvidence, p: RouteParams) -> list[str]:
    reasons = []
    if not e.trusted:
        reasons.append(f"text layer not trusted: {e.trust_reason}")
    if e.bad_chars:
        reasons.append(f"{e.bad_chars} characters no font maps (replacement, private-use, control or cid codes)")
    if e.words < p.min_words:
        reasons.append(f"{e.words} words: too few to judge the layer's language")
    elif e.language is None:
        reasons.append("no function words known for the layer's language")
    elif e.function_word_share < p.min_function_word_share:
        reasons.append(f"letters, not words: {e.function_word_share:.1%} function words of {e.language}")
    return reasons


def _ink(e: RouteEvidence, p: RouteParams) -> list[str]:
    reasons = []
    if e.invisible_chars:
        reasons.append(f"{e.invisible_chars} characters drawn invisibly (an OCR layer)")
    if e.image_share > p.max_image_share:
        reasons.append(f"images cover {e.image_share:.0%} of the page (a scan under its layer?)")
    if e.raster_text_lines > p.max_raster_text_lines:
        reasons.append(f"{e.raster_text_lines} lines of raster text the layer does not hold")
    return reasons


def _layout(e: RouteEvidence, p: RouteParams) -> list[str]:
    reasons = []
    if e.tables:
        reasons.append(f"{e.tables} tables")
    if e.formulas:
        reasons.append(f"{e.formulas} formulas")
    at_edge, lone = [], []
    for line in e.edge_lines:
        y = float(line["y"])
        if min(y, 1 - y) < p.edge_band:
            at_edge.append(str(line["text"]))
        elif min(y, 1 - y) < p.lone_zone and line["gap"] > p.lone_gap_lines and line["width"] < p.lone_width_share:
            lone.append(str(line["text"]))
    if at_edge:
        reasons.append(f"kept at the page's edge: {_quoted(at_edge)}")
    if lone:
        reasons.append(f"a lone line near the edge kept: {_quoted(lone)}")
    if e.layout_notes:
        reasons.append(f"layout bounds fired: {'; '.join(e.layout_notes)}")
    return reasons


def _quoted(lines: list[str], limit: int = 3) -> str:
    shown = ", ".join(repr(line[:40]) for line in lines[:limit])
    return shown + (f" and {len(lines) - limit} more" if len(lines) > limit else "")
