"""OCR overlapped with rendering: each page goes to the VLM server as it renders, and the same op collects the
answers afterwards instead of sending the group again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ocr_pipeline.engines.factory import ServerEngine, vlm_engine
from ocr_pipeline.engines.vlm.client import VlmClientError, wait_for_server
from ocr_pipeline.engines.vlm.page_stream import PageStream
from ocr_pipeline.routing.router import PageRouter, page_router
from ocr_pipeline.settings import DEFAULT_PDF_MEMORY_MB, PipelineSettings
from ocr_pipeline.stages.ocr_manifest import OcrResult
from ocr_pipeline.stages.vlm_ocr_outputs import needs_engine, ocr_with_engine, page_input
from ocr_pipeline.workspace.memo import PageMemo
from ocr_pipeline.workspace.storage import Workspace

# Servers that answered GET /v1/models in this process: readiness is probed once, not per partition. A cache,
# not a hand-off: whichever op asks, the answer is the same.
_ready: set[str] = set()
# The one probe's patience: a server that is not up yet is left to the OCR step's full readiness wait.
PROBE_TIMEOUT_S = 2.0


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


def streams_pages(settings: PipelineSettings, enabled: bool) -> bool:
    """Whether an op that renders and reads a group streams its pages: a local VLM server, and streaming on.

    A GPU pod (the k8s launcher) has its own server, out of this process's reach.
    """
    return enabled and bool(settings.server) and settings.ocr_launcher != "k8s"


@dataclass
class GroupStream:
    """One group's stream: the rows to send are chosen exactly as ocr_group chooses them."""

    stream: PageStream
    memo: PageMemo
    engine: ServerEngine
    router: PageRouter | None = None  # `route auto`: a routed page is never sent
    broken: bool = False

    def offer_row(self, row: dict[str, Any]) -> None:
        """Send the page now if ocr_group would send it; a refused page is sent by the OCR step later."""
        if self.broken:
            return
        try:
            if needs_engine(row, self.memo, self.router):
                self.stream.offer(page_input(row))
        except Exception:  # noqa: BLE001 - never the document's fault: the OCR step sends what is left
            self.broken = True

    def close(self) -> None:
        """Wait for the pages already sent (their answers land in the memo) without writing a manifest."""
        self.stream.wait()


def open_group_stream(workspace: Workspace, settings: PipelineSettings) -> GroupStream | None:
    """Start streaming a group's pages to the server, or None when the server does not answer the probe."""
    if not settings.server or not server_ready(settings):
        return None
    engine = ServerEngine(vlm_engine(settings))
    memo = PageMemo(workspace, engine.memo_key(settings.target_longest_image_dim))
    # Good answers go to the memo as they arrive: a crash mid-stream keeps them for the rerun.
    return GroupStream(PageStream(engine.engine, on_result=memo.put), memo, engine, page_router(settings))


def finish_group_stream(
    workspace: Workspace,
    group: str,
    opened: GroupStream,
    target_dim: int,
    progress: Callable[[int], None] | None = None,
    input_client: Any = None,
    pdf_memory_mb: int = DEFAULT_PDF_MEMORY_MB,
) -> OcrResult:
    """Wait for the streamed answers, send whatever the stream left, and write the group's OCR manifest.

    `input_client` reads inputs on S3 again for the full layout of a page that fell back (see fallback_layouts),
    in a PDF reader capped at `pdf_memory_mb` MiB.
    """
    answers = opened.stream.wait()
    result = ocr_with_engine(
        workspace,
        group,
        opened.engine,
        target_dim,
        progress,
        streamed=answers,
        input_client=input_client,
        pdf_memory_mb=pdf_memory_mb,
        router=opened.router,
    )
    result.seconds = opened.stream.seconds  # the group's OCR began with its first streamed page
    return result
