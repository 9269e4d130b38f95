"""Which pages need the model: a per-page decision from the evidence a page already yields (no model call)."""

from ocr_pipeline.routing.decide import RouteDecision, decide
from ocr_pipeline.routing.evidence import RouteEvidence
from ocr_pipeline.routing.params import ROUTE_MODES, RouteParams

__all__ = ["ROUTE_MODES", "RouteDecision", "RouteEvidence", "RouteParams", "decide"]
