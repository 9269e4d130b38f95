"""`route auto` applied: a page whose evidence clears the router is read from its text layer, never sent.

The page rows of a routed run carry each page's full layout and its RouteEvidence (pdf/route_evidence.py); the OCR
stage and the canary's eval decide with this, with the run's RouteParams, so changing them needs no new render. A
routed page's result is its layout text, `engine` "text_layer"; every page's result says its route and why (`extra`:
`route`, `route_reasons`), the memo keeps that, and a `route model` run never takes a routed entry for a model's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ocr_pipeline.quality.language_detector import page_language
from ocr_pipeline.records import PageResult
from ocr_pipeline.routing.decide import MODEL, TEXT_LAYER, RouteDecision, decide
from ocr_pipeline.routing.evidence import RouteEvidence
from ocr_pipeline.routing.params import ROUTE_PARAMS, RouteParams
from ocr_pipeline.settings import PipelineSettings

# The engine name of a page routed to its text layer (the Dolma metadata's `engine` lists it beside the model's).
ROUTED_ENGINE = "text_layer"

__all__ = ["MODEL", "ROUTED_ENGINE", "TEXT_LAYER", "PageRouter", "page_router", "route_of"]


@dataclass(frozen=True)
class PageRouter:
    """Decides each page row's route for a `route auto` run, and makes a routed page's result."""

    params: RouteParams = ROUTE_PARAMS

    def decision(self, row: dict[str, Any]) -> RouteDecision:
        """The row's route from its stored evidence (a row read without it goes to the model)."""
        return decide(RouteEvidence.from_json(row.get("route_evidence")), self.params)

    def routed_result(self, row: dict[str, Any], decision: RouteDecision) -> PageResult:
        """The page read from its text layer: the layout the reader wrote, as the CPU engine answers a trusted page."""
        started = time.perf_counter()
        text = row.get("text_layer") or ""
        return PageResult(
            source_hash=row["sha256"],
            page_num=row["page_num"],
            text=text,
            primary_language=page_language(text),
            is_table="<table>" in text,
            engine=ROUTED_ENGINE,
            attempts=0,
            elapsed_s=round(time.perf_counter() - started, 4),
            extra={"route": decision.route, "route_reasons": decision.reasons, "source": "text_layer"},
        )


def page_router(settings: PipelineSettings) -> PageRouter | None:
    """The run's router: only with a model server and `route auto` (the CPU engine reads trusted layers anyway)."""
    return PageRouter() if settings.server and settings.route == "auto" else None


def route_of(result: PageResult) -> str | None:
    """A result's route as it recorded it: TEXT_LAYER, MODEL, or None (read without routing)."""
    route = result.extra.get("route")
    return route if route in (TEXT_LAYER, MODEL) else None
