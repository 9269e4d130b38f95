"""The one place engines plug in: each engine's adapter to OcrEngine, and the factory that picks one from settings.

A new engine adds an entry to ENGINES; nothing else in the package names an engine class.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from ocr_pipeline.engines.base import OcrEngine, PageEngine, PageFactory, ResultSink, result_settings_key
from ocr_pipeline.engines.vlm.vlm_engine import VlmEngine
from ocr_pipeline.records import TEXT_LAYOUT, TEXT_PLAIN, TEXT_ROUTE
from ocr_pipeline.settings import PipelineSettings

if TYPE_CHECKING:
    from ocr_pipeline.engines.cpu import CpuEngine


_Wrapped = TypeVar("_Wrapped", PageEngine, VlmEngine)


class _EngineAdapter(Generic[_Wrapped]):
    """What every adapter shares: the wrapped engine's name and model, and the memo key built from them."""

    engine: _Wrapped

    @property
    def name(self) -> str:
        """The wrapped engine's name."""
        return self.engine.name

    @property
    def model(self) -> str:
        """The wrapped engine's model (the model name sent to a server)."""
        return self.engine.model

    @property
    def version(self) -> str:
        """What else shapes the engine's answers (each adapter says)."""
        raise NotImplementedError

    def memo_key(self, target_dim: int) -> str:
        """The memo's settings key for this engine and image size."""
        return result_settings_key(self.name, self.model, self.version, target_dim)


class SequentialEngine(_EngineAdapter[PageEngine]):
    """A one-page-at-a-time engine as an OcrEngine: pages are read in order, in the calling thread."""

    # The CPU engine answers a page with its trusted text layer: it needs every page's full layout.
    reads_text_layer = True

    def __init__(self, engine: PageEngine, version: str) -> None:
        self.engine, self._version = engine, version

    @property
    def version(self) -> str:
        """The wrapped engine's revision."""
        return self._version

    async def run_pages(self, pages: Iterable[PageFactory], on_result: ResultSink) -> None:
        """Read the pages one after another."""
        # No other task shares this loop, and the CPU engine parallelises inside a page (its ONNX sessions):
        # reading in this thread keeps its sessions where they were made.
        for factory in pages:
            on_result(self.engine.ocr_page(factory()))


class ServerEngine(_EngineAdapter[VlmEngine]):
    """The VLM engine as an OcrEngine: bounded concurrent requests, connections closed when the pages are done."""

    # The model reads the page; the text layer is only its reference, and its answer after the last attempt.
    reads_text_layer = False

    def __init__(self, engine: VlmEngine) -> None:
        self.engine = engine

    @property
    def version(self) -> str:
        """The prompt version (olmOCR's prompt and reply format)."""
        return self.engine.prompt_version

    async def run_pages(self, pages: Iterable[PageFactory], on_result: ResultSink) -> None:
        """Every page through the server; a server-level failure cancels the rest and raises."""
        async with self.engine:
            await self.engine.run_pages(pages, on_result)


def vlm_engine(settings: PipelineSettings) -> VlmEngine:
    """The VLM client engine the settings describe (the stream, the worker and the factory all use this one)."""
    if not settings.server:
        raise ValueError("the VLM engine needs a server URL")
    return VlmEngine(
        settings.server,
        settings.model,
        api_key=settings.api_key,
        max_page_retries=settings.max_page_retries,
        guided_decoding=settings.guided_decoding,
        max_concurrent_requests=settings.max_concurrent_requests,
    )


@functools.lru_cache(maxsize=1)
def _cpu_engine() -> CpuEngine:
    """The embedded CPU engine, one per process: its ONNX models load once, not once per partition."""
    # Imported here to save start-up time: RapidOCR and onnxruntime load only where the CPU engine runs.
    from ocr_pipeline.engines.cpu import CpuEngine

    return CpuEngine()


def cpu_engine(settings: PipelineSettings) -> OcrEngine:
    """The embedded CPU engine (no server needed)."""
    engine = _cpu_engine()
    return SequentialEngine(engine, engine.revision)


@dataclass(frozen=True)
class EngineEntry:
    """One engine the factory can build: its name, when the settings choose it, and how to build it."""

    name: str
    chosen: Callable[[PipelineSettings], bool]
    build: Callable[[PipelineSettings], OcrEngine]
    # The kind of text layer its pages are rendered with (records.TEXT_*): the full layout unless the engine's
    # answers never are the layer itself (see OcrEngine.reads_text_layer).
    text_layer: str = TEXT_LAYOUT


# In order: the first entry whose condition holds is the run's engine. A new engine goes here, before the CPU
# engine (the fallback that needs nothing).
ENGINES: list[EngineEntry] = [
    EngineEntry(
        "vlm", lambda settings: bool(settings.server), lambda settings: ServerEngine(vlm_engine(settings)), TEXT_PLAIN
    ),
    EngineEntry("cpu", lambda settings: True, cpu_engine),
]


def engine_name(settings: PipelineSettings) -> str:
    """Which engine the settings choose (the VLM engine with a server, else the embedded CPU engine)."""
    return next(entry.name for entry in ENGINES if entry.chosen(settings))


def text_layer_kind(settings: PipelineSettings) -> str:
    """The kind of text layer the chosen engine needs its pages rendered with (records.TEXT_LAYOUT or TEXT_PLAIN), or
    TEXT_ROUTE for a model server with `route auto`: the layout a routed page is read as, and its evidence."""
    kind = next(entry.text_layer for entry in ENGINES if entry.chosen(settings))
    return TEXT_ROUTE if kind == TEXT_PLAIN and settings.route == "auto" else kind


def engine_identity(settings: PipelineSettings) -> tuple[str, str, str]:
    """(name, model, version) of the engine the settings choose, without building it (no models loaded)."""
    # Imported here to save start-up time (the sensor asks on each tick): the class only, its models load in
    # __init__; the prompt version is a constant of the VLM engine's module, already imported above.
    from ocr_pipeline.engines.cpu.cpu_engine import CpuEngine
    from ocr_pipeline.engines.vlm.prompts import PROMPT_VERSION

    if engine_name(settings) == "vlm":
        return "vlm", settings.model, PROMPT_VERSION
    return CpuEngine.name, CpuEngine.model, CpuEngine.revision


def build_engine(settings: PipelineSettings) -> OcrEngine:
    """The engine the settings choose, ready to read pages."""
    return next(entry.build(settings) for entry in ENGINES if entry.chosen(settings))
