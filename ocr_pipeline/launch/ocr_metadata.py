"""The OCR asset's metadata, one recipe for every launcher: in-process, streamed, Pipes subprocess, Kubernetes pod."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dagster import MaterializeResult, MetadataValue, PipesClientCompletedInvocation

from ocr_pipeline.stages.ocr_manifest import OcrResult

# The worker's report (see worker.summary), by field: what a Pipes launcher reads back into an OcrResult.
_COUNTS = ("pages", "memo_hits", "fallback_pages", "error_pages", "input_tokens", "output_tokens", "routed_pages",
           "engine_pages")  # fmt: skip


def cost_metadata(pages: int, memo_hits: int, seconds: float, hourly: float) -> dict[str, Any]:
    """Dollars per million pages at `hourly` dollars an hour (the machine's or GPU's price), when it is set.

    The price itself goes in `cost_basis`, as text: a number that is the same on every run is not worth a plot.
    """
    read = pages - memo_hits  # pages served from the memo cost nothing
    if hourly <= 0 or read <= 0 or seconds <= 0:
        return {}
    per_page_s = seconds / read
    basis = f"${hourly:.2f}/hour x {per_page_s:.3f} s a page over {read} pages read ({memo_hits} from the memo)"
    return {
        "usd_per_million_pages": round(hourly / 3600 * per_page_s * 1_000_000, 2),
        "cost_basis": MetadataValue.text(basis),
    }


def memo_rerun_cost(pages: int, memo_hits: int, hourly: float) -> dict[str, Any]:
    """The cost of a run whose every page came from the memo: 0, and why, so the series has no hole."""
    if hourly <= 0 or pages <= 0 or memo_hits < pages:
        return {}
    basis = f"all {pages} pages from the memo: nothing read, nothing spent (the first run's cost is on its event)"
    return {"usd_per_million_pages": 0.0, "cost_basis": MetadataValue.text(basis)}


def route_metadata(result: OcrResult, hourly: float) -> dict[str, Any]:
    """Pages sent to the model and pages `route auto` read from their text layer, and what that saved at `hourly`.

    The saving prices each routed page at this group's own seconds a page the engine read; without such pages (or a
    price) it is left out rather than guessed.
    """
    meta: dict[str, Any] = {"pages_to_model": result.pages - result.routed_pages, "pages_routed": result.routed_pages}
    if hourly > 0 and result.routed_pages and result.engine_pages and result.seconds > 0:
        per_page_s = result.seconds / result.engine_pages
        meta["gpu_usd_saved"] = round(result.routed_pages * per_page_s * hourly / 3600, 4)
        meta["gpu_seconds_saved"] = round(result.routed_pages * per_page_s, 1)
    return meta


def ocr_metadata(result: OcrResult, uri: str, hourly: float, engine: str, model: str) -> dict[str, Any]:
    """Asset metadata of one group's OCR: which engine and model, counts, tokens, speed, cost, where it is.

    Tokens only when the engine spent any: the CPU engine reports none.
    """
    tokens = {"input_tokens": result.input_tokens, "output_tokens": result.output_tokens}
    cost = cost_metadata(result.pages, result.memo_hits, result.seconds, hourly)
    return {
        "engine": engine,
        "model": model,
        "pages": result.pages,
        "memo_hits": result.memo_hits,
        "fallback_pages": result.fallback_pages,
        "error_pages": result.error_pages,
        **route_metadata(result, hourly),
        **(tokens if any(tokens.values()) else {}),
        "seconds": round(result.seconds, 2),
        "pages_per_second": round(result.pages_per_second, 3),
        "languages": MetadataValue.json(result.languages),
        "results": MetadataValue.path(uri),
        **(cost or memo_rerun_cost(result.pages, result.memo_hits, hourly)),
    }


def pipes_report(completed: PipesClientCompletedInvocation) -> Mapping[str, Any]:
    """The metadata the worker reported through Pipes, whichever of the op's assets it named."""
    # No implicit results: the op computes page_images too, which the worker never reports.
    results = completed.get_results(implicit_materializations=False)
    reports = [r.metadata or {} for r in results if isinstance(r, MaterializeResult)]
    return reports[-1] if reports else {}


def reported_metadata(reported: Mapping[str, Any], uri: str, hourly: float, engine: str, model: str) -> dict[str, Any]:
    """The same metadata from a worker's Pipes report (subprocess or pod); the worker's own engine and model win."""

    def value(name: str) -> Any:
        return getattr(reported.get(name), "value", reported.get(name))

    result = OcrResult(
        **{name: int(value(name) or 0) for name in _COUNTS},
        seconds=float(value("seconds") or 0.0),
        languages=dict(value("languages") or {}),
    )
    return ocr_metadata(result, uri, hourly, str(value("engine") or engine), str(value("model") or model))
