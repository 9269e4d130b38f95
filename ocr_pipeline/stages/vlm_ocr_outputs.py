"""The OCR stage: every rendered page through an engine, memoised per page, results in one Parquet per group."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ocr_pipeline.engines.base import OcrEngine, PageFactory, PageRunner, page_runner
from ocr_pipeline.quality import PageFacts, add_document_language, page_signals
from ocr_pipeline.quality.print_ink import PageInk, page_ink
from ocr_pipeline.records import UNREADABLE_PAGE_PREFIX, PageInput, PageResult
from ocr_pipeline.routing.router import MODEL, TEXT_LAYER, PageRouter, route_of
from ocr_pipeline.settings import DEFAULT_PDF_MEMORY_MB
from ocr_pipeline.stages.fallback_layouts import FallbackLayouts, RowUpgrade, is_plain, with_layouts
from ocr_pipeline.stages.ocr_manifest import OcrResult
from ocr_pipeline.workspace.keys import ocr_key, pages_key
from ocr_pipeline.workspace.ledger import read_stage_rejections
from ocr_pipeline.workspace.manifest_schemas import OCR_SCHEMA
from ocr_pipeline.workspace.memo import PageMemo
from ocr_pipeline.workspace.storage import Workspace
from ocr_pipeline.workspace.tables import iter_batches, write_table

# A page is blank when at most this many pixels differ from its background by more than INK_CONTRAST grey
# levels: a clean or lightly speckled empty scan passes, a page with even one printed digit does not.
BLANK_MAX_INK_PIXELS = 24


def needs_engine(row: dict[str, Any], memo: PageMemo, router: PageRouter | None = None) -> bool:
    """Whether ocr_group would send this page row to the engine (no memo entry, rendered, not blank, not routed)."""
    if memo.get(row["sha256"], row["page_num"], routed=router is not None) is not None:
        return False
    if row.get("render_error") and not row.get("png"):
        return False
    if router is not None and router.decision(row).routed:
        return False
    return _blank(row, _ink(row)) is None


def page_input(row: dict[str, Any]) -> PageInput:
    """The engine's input for a page row (the same whether read from the Parquet or streamed as rendered)."""
    return PageInput.from_row(row)


def _unreadable(row: dict[str, Any]) -> PageResult:
    """A flagged fallback for a page that did not render: its text layer, if any, and the render error."""
    return PageResult(
        source_hash=row["sha256"],
        page_num=row["page_num"],
        text=row.get("text_layer") or "",
        is_fallback=True,
        error=UNREADABLE_PAGE_PREFIX + str(row["render_error"]),
    )


def ink_pixels(png: bytes) -> int:
    """Pixels of a rendered page more than INK_CONTRAST grey levels from its background (the median grey)."""
    return page_ink(png).ink_pixels


def _ink(row: dict[str, Any]) -> PageInk | None:
    """The ink of a page without a text layer (the blank and print checks need it), None otherwise or if unreadable."""
    if (row.get("text_layer") or "").strip() or not row.get("png"):
        return None
    try:
        return page_ink(row["png"])
    except Exception:  # noqa: BLE001 - an image PIL cannot read is the engine's to judge (and to report)
        return None


def _facts(row: dict[str, Any], ink: PageInk | None) -> PageFacts:
    """What the quality signals need of a page row: its size, its trusted text layer, its ink if counted."""
    trusted = (row.get("text_layer") or "") if row.get("text_layer_trusted") else ""
    return PageFacts(width=row.get("width") or 0, height=row.get("height") or 0, trusted_text_layer=trusted,
                     ink_pixels=ink.ink_pixels if ink else None,
                     print_capacity=ink.capacity if ink else None)  # fmt: skip


def _blank(row: dict[str, Any], ink: PageInk | None) -> PageResult | None:
    """An empty-text result for a (near-)uniform page without a text layer, or None to send it to the engine.

    Both engines benefit: a thousand blank scans cost a second here instead of an hour of CPU OCR or a thousand
    requests. Not an error and not a fallback, so neither the error-rate gate nor the document's verdict counts
    it; a document whose pages are all blank still ends as `no_text`.
    """
    if ink is None or ink.ink_pixels > BLANK_MAX_INK_PIXELS:
        return None
    return PageResult(
        source_hash=row["sha256"], page_num=row["page_num"], text="", attempts=0, extra={"blank_page": True}
    )


def _result_row(source: str, result: PageResult, memo_hit: bool, facts: PageFacts) -> dict[str, Any]:
    row = result.to_dict()
    row["extra"] = json.dumps(row.pop("extra") or {}, sort_keys=True)
    row.pop("source_hash")
    # Computed on every write, memo hits included: signals reach pages read before they existed.
    row.update(source=source, sha256=result.source_hash, memo_hit=memo_hit, quality=page_signals(result, facts))
    reasons = result.extra.get("route_reasons")
    row.update(route=route_of(result), route_reasons=json.dumps(reasons) if isinstance(reasons, list) else None)
    return row


def ocr_group(
    workspace: Workspace,
    group: str,
    runner: PageRunner,
    settings_key: str,
    progress: Callable[[int], None] | None = None,
    streamed: Mapping[tuple[str, int], PageResult] | None = None,
    *,
    input_client: Any = None,
    reads_text_layer: bool = True,
    pdf_memory_mb: int = DEFAULT_PDF_MEMORY_MB,
    router: PageRouter | None = None,
) -> OcrResult:
    """OCR every page of the group not already in the memo and write `manifests/ocr/<group>.parquet`.

    `streamed` holds pages the engine already read in this run while they rendered: recorded as fresh results
    (not memo hits), so the manifest and the shard are the ones a run without streaming writes. A page rendered with
    the plain text only (the VLM path) that falls back gets its full layout from the input (`input_client` for one
    on S3; the PDF reader capped at `pdf_memory_mb` MiB) before it is recorded; an engine that `reads_text_layer`
    gets the full layout of every page. With a `router` (`route auto`), a page whose evidence clears it is read from
    its text layer and never reaches the engine (stages/page_routes.py).
    """
    layouts = FallbackLayouts(workspace, group, input_client, pdf_memory_mb)
    try:
        return _ocr_group(workspace, group, runner, settings_key, progress, streamed, layouts, reads_text_layer, router)
    finally:
        layouts.close()


def _ocr_group(
    workspace: Workspace,
    group: str,
    runner: PageRunner,
    settings_key: str,
    progress: Callable[[int], None] | None,
    streamed: Mapping[tuple[str, int], PageResult] | None,
    layouts: FallbackLayouts,
    reads_text_layer: bool,
    router: PageRouter | None,
) -> OcrResult:
    started = time.monotonic()
    memo = PageMemo(workspace, settings_key)
    skip = {r.source for r in read_stage_rejections(workspace, "render", group)}
    rows: list[dict[str, Any]] = []
    # Pages out at the engine: their source, what their quality signals need of the page row, whether plain.
    sources: dict[tuple[str, int], tuple[str, PageFacts, bool]] = {}
    # Fallbacks of plain rows, recorded once their full layout is read (one request per document, at the end).
    waiting: list[tuple[str, PageResult, PageFacts]] = []
    upgrade = RowUpgrade(layouts) if reads_text_layer else None
    result = OcrResult()
    model_reasons: dict[tuple[str, int], list[str]] = {}  # why each page sent to the engine could not be routed

    def record(source: str, page: PageResult, memo_hit: bool, facts: PageFacts) -> None:
        rows.append(_result_row(source, page, memo_hit, facts))
        result.pages += 1
        result.memo_hits += memo_hit
        result.routed_pages += route_of(page) == TEXT_LAYER
        result.engine_pages += not memo_hit and route_of(page) != TEXT_LAYER and page.attempts > 0
        result.fallback_pages += page.is_fallback
        result.error_pages += bool(page.error)
        result.input_tokens += page.input_tokens
        result.output_tokens += page.output_tokens
        lang = page.primary_language or "none"
        result.languages[lang] = result.languages.get(lang, 0) + 1
        if progress is not None:
            progress(1)

    def fresh(source: str, page: PageResult, facts: PageFacts, plain: bool) -> None:
        """Record a result read in this run; a fallback of a plain row waits for its layout."""
        if plain and page.is_fallback:
            waiting.append((source, page, facts))
        else:
            record(source, page, False, facts)

    def sink(page: PageResult) -> None:
        source, facts, plain = sources.pop((page.source_hash, page.page_num))
        if router is not None:  # the memo entry knows the page went to the model, and why
            reasons = model_reasons.pop((page.source_hash, page.page_num), [])
            page.extra = {**page.extra, "route": MODEL, "route_reasons": reasons}
        memo.put(page)
        fresh(source, page, facts, plain)

    def factories() -> Iterator[PageFactory]:
        for row in iter_batches(workspace, pages_key(group)):
            if row["source"] in skip:
                continue
            if upgrade is not None:
                row = upgrade(row)
            plain = is_plain(row)
            # A streamed or memoised answer is judged as a fresh one: the ink of a page without a text layer is
            # counted for it too (one decode of a scan), or text invented for a near-blank scan would pass unseen
            # whenever the page streamed, which the CLI does by default.
            answered = (streamed or {}).get((row["sha256"], row["page_num"]))
            if answered is not None:
                if router is not None:  # streamed only when not routed (needs_engine): the model read it
                    answered.extra = {**answered.extra, "route": MODEL, "route_reasons": router.decision(row).reasons}
                fresh(row["source"], answered, _facts(row, _ink(row)), plain)
                continue
            cached = memo.get(row["sha256"], row["page_num"], routed=router is not None)
            if cached is not None:
                record(row["source"], cached, True, _facts(row, _ink(row)))
                continue
            if row.get("render_error") and not row.get("png"):
                # Nothing to send: the page is the input's failure, kept out of the memo and of the engine.
                fresh(row["source"], _unreadable(row), _facts(row, None), plain)
                continue
            ink = _ink(row)
            blank = _blank(row, ink)
            if blank is not None:
                record(row["source"], blank, False, _facts(row, ink))
                continue
            if router is not None:
                decision = router.decision(row)
                if decision.routed:
                    routed = router.routed_result(row, decision)
                    memo.put(routed)
                    record(row["source"], routed, False, _facts(row, ink))
                    continue
                model_reasons[(row["sha256"], row["page_num"])] = decision.reasons
            sources[(row["sha256"], row["page_num"])] = (row["source"], _facts(row, ink), plain)
            yield functools.partial(PageInput.from_row, row)

    runner(factories(), sink)
    for source, page, facts in with_layouts(waiting, layouts):
        record(source, page, False, facts)
    rows.sort(key=lambda r: (r["source"], r["page_num"]))
    add_document_language(rows)
    for row in rows:
        row["quality"] = json.dumps(row["quality"], sort_keys=True)
    write_table(workspace, ocr_key(group), rows, OCR_SCHEMA)
    result.seconds = time.monotonic() - started
    return result


def ocr_with_engine(
    workspace: Workspace,
    group: str,
    engine: OcrEngine,
    target_dim: int,
    progress: Callable[[int], None] | None = None,
    streamed: Mapping[tuple[str, int], PageResult] | None = None,
    input_client: Any = None,
    pdf_memory_mb: int = DEFAULT_PDF_MEMORY_MB,
    router: PageRouter | None = None,
) -> OcrResult:
    """ocr_group through an engine: its async runner and its memo key (every launcher calls this)."""
    reads = bool(getattr(engine, "reads_text_layer", True))  # see OcrEngine: an engine that does not say reads it
    runner, key = page_runner(engine), engine.memo_key(target_dim)
    return ocr_group(
        workspace,
        group,
        runner,
        key,
        progress,
        streamed,
        input_client=input_client,
        reads_text_layer=reads,
        pdf_memory_mb=pdf_memory_mb,
        router=router,
    )
