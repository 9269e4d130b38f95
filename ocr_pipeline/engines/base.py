"""The OCR engine contract every engine meets (CPU, VLM, any new one), and the memo key that names its results."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Protocol

from ocr_pipeline.records import PageInput, PageResult

# A page rendered just in time: the engine calls it when it has a slot for the page.
PageFactory = Callable[[], PageInput]
ResultSink = Callable[[PageResult], None]
# Runs page factories through an engine and hands each result to the sink, from synchronous code.
PageRunner = Callable[[Iterable[PageFactory], ResultSink], None]


class OcrEngine(Protocol):
    """What the OCR stage needs of an engine: who it is, the memo key of its results, and an async page runner.

    `run_pages` never raises for a page-level failure (the page gets a fallback result); it raises only when the
    engine as a whole fails (a server gone), and closes what it opened before returning.

    An engine may say `reads_text_layer = False` when its answers are never the page's text layer itself (the VLM
    engine: the model reads the page, the layer is its fallback): its pages then carry pdfium's plain text, and a
    page that falls back gets its full layout afterwards. Without the attribute, every page gets the full layout.
    """

    @property
    def name(self) -> str:
        """The engine's name, written into each page result and the asset metadata ("cpu", "vlm")."""

    @property
    def model(self) -> str:
        """The model that reads the pages."""

    @property
    def version(self) -> str:
        """What besides the model shapes its answers (a prompt version, an engine revision): part of the memo key."""

    def memo_key(self, target_dim: int) -> str:
        """The settings part of the page memo key for pages rendered at `target_dim`."""

    async def run_pages(self, pages: Iterable[PageFactory], on_result: ResultSink) -> None:
        """Read every page, handing each result to `on_result` as it is ready."""


class PageEngine(Protocol):
    """A synchronous one-page-at-a-time engine (the CPU engine); the factory adapts it to OcrEngine."""

    name: str
    model: str

    def ocr_page(self, page: PageInput) -> PageResult:
        """The page's text and attributes; a page-level failure is a fallback result, not an exception."""


def result_settings_key(engine_name: str, model: str, version: str, target_dim: int) -> str:
    """A short digest of everything that shapes a page result besides the page itself (memo key part)."""
    payload = json.dumps({"engine": engine_name, "model": model, "prompt": version, "dim": target_dim}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def page_runner(engine: OcrEngine) -> PageRunner:
    """The engine's async runner behind a synchronous call (the OCR stage's loop is synchronous)."""

    def run(pages: Iterable[PageFactory], sink: ResultSink) -> None:
        asyncio.run(engine.run_pages(pages, sink))

    return run
