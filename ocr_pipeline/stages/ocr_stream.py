"""OCR overlapped with rendering: page_images hands each page to the VLM server as it renders it, and
vlm_ocr_outputs (same process, same run) collects the answers instead of sending the group again."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ocr_pipeline.engines.base import result_settings_key
from ocr_pipeline.engines.vlm.client import VlmClientError, wait_for_server
from ocr_pipeline.engines.vlm.page_stream import PageStream
from ocr_pipeline.engines.vlm.vlm_engine import VlmEngine
from ocr_pipeline.records import PageResult
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.vlm_ocr_outputs import OcrResult, needs_engine, ocr_group, page_input
from ocr_pipeline.workspace.memo import PageMemo
from ocr_pipeline.workspace.storage import Workspace

# Servers that answered GET /v1/models in this process: readiness is probed once, not per partition.
_ready: set[str] = set()
# Open streams by (workspace URI, group), handed from the page_images step to the vlm_ocr_outputs step.
_streams: dict[tuple[str, str], GroupStream] = {}
_lock = threading.Lock()
# The one probe's patience: a server that is not up yet is left to the OCR step's full readiness wait.
PROBE_TIMEOUT_S = 2.0


def vlm_engine_for(settings: PipelineSettings) -> VlmEngine:
    """The VLM engine the settings describe (the worker builds the same one)."""
    assert settings.server
    return VlmEngine(
        settings.server,
        settings.model,
        api_key=settings.api_key,
        max_page_retries=settings.max_page_retries,
        guided_decoding=settings.guided_decoding,
        max_concurrent_requests=settings.max_concurrent_requests,
    )


def settings_key_of(engine: VlmEngine, settings: PipelineSettings) -> str:
    """The memo's settings key for this engine and image size."""
    return result_settings_key(engine.name, engine.model, engine.prompt_version, settings.target_longest_image_dim)


def server_ready(settings: PipelineSettings) -> bool:
    """One cheap probe per server and process; a server that answered once is not asked again."""
    assert settings.server
    if settings.server in _ready:
        return True
    try:
        asyncio.run(wait_for_server(settings.server, PROBE_TIMEOUT_S, api_key=settings.api_key))
    except VlmClientError:
        return False  # the OCR step waits for it (or reports it) as it always did
    _ready.add(settings.server)
    return True


@dataclass
class GroupStream:
    """One group's stream: the rows to send are chosen exactly as ocr_group chooses them."""

    stream: PageStream
    memo: PageMemo
    settings: PipelineSettings
    broken: bool = False

    def offer_row(self, row: dict[str, Any]) -> None:
        """Send the page now if ocr_group would send it; a refused page is sent by the OCR step later."""
        if self.broken:
            return
        try:
            if needs_engine(row, self.memo):
                self.stream.offer(page_input(row))
        except Exception:  # noqa: BLE001 - never the document's fault: the OCR step sends what is left
            self.broken = True


def open_group_stream(workspace: Workspace, group: str, settings: PipelineSettings) -> GroupStream | None:
    """Start streaming a group's pages to the server, or None when the server does not answer the probe."""
    if not settings.server or not server_ready(settings):
        return None
    engine = vlm_engine_for(settings)
    memo = PageMemo(workspace, settings_key_of(engine, settings))
    # Good answers go to the memo as they arrive: a crash mid-stream keeps them for the rerun.
    opened = GroupStream(PageStream(engine, on_result=memo.put), memo, settings)
    with _lock:
        stale = _streams.pop((workspace.uri, group), None)
        _streams[(workspace.uri, group)] = opened
    if stale is not None:
        stale.stream.wait()  # a run whose OCR step never came: its answers are in the memo already
    return opened


def take_group_stream(workspace: Workspace, group: str) -> GroupStream | None:
    """The stream page_images opened for this group in this process, handed over once."""
    with _lock:
        return _streams.pop((workspace.uri, group), None)


def drop_group_stream(workspace: Workspace, group: str) -> None:
    """Finish a stream no OCR step of this process will collect (its answers stay in the memo)."""
    opened = take_group_stream(workspace, group)
    if opened is not None:
        opened.stream.wait()


def vlm_runner(engine: VlmEngine) -> Callable[[Iterable[Any], Callable[[PageResult], None]], None]:
    """A page runner over the VLM engine with bounded concurrency (for the pages the stream left)."""

    def run(factories: Iterable[Any], sink: Callable[[PageResult], None]) -> None:
        async def go() -> None:
            async with engine:
                await engine.run_pages(factories, sink)

        asyncio.run(go())

    return run


def finish_group_stream(
    workspace: Workspace, group: str, opened: GroupStream, progress: Callable[[int], None] | None = None
) -> OcrResult:
    """Wait for the streamed answers, send whatever the stream left, and write the group's OCR manifest."""
    answers = opened.stream.wait()
    engine = vlm_engine_for(opened.settings)
    key = settings_key_of(engine, opened.settings)
    result = ocr_group(workspace, group, vlm_runner(engine), key, progress, streamed=answers)
    result.seconds = opened.stream.seconds  # the group's OCR began with its first streamed page
    return result
