"""Engines behind one interface: the factory picks one from the settings, a new engine plugs in at one place, and
every launcher reports the same metadata."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest
from dagster import MetadataValue

from ocr_pipeline.engines import factory
from ocr_pipeline.engines.base import PageFactory, ResultSink, result_settings_key
from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.engines.vlm import PROMPT_VERSION
from ocr_pipeline.launch.ocr_metadata import ocr_metadata, reported_metadata
from ocr_pipeline.records import PageResult
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.page_images import PAGES_SCHEMA
from ocr_pipeline.stages.vlm_ocr_outputs import OcrResult, ocr_with_engine
from ocr_pipeline.worker import summary
from ocr_pipeline.workspace.keys import ocr_key, pages_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_rows, write_table


def test_the_settings_choose_the_engine() -> None:
    cpu = factory.build_engine(PipelineSettings(workspace="w"))
    assert (cpu.name, cpu.model, cpu.version) == ("cpu", CpuEngine.model, CpuEngine.revision)
    vlm = factory.build_engine(PipelineSettings(workspace="w", server="http://127.0.0.1:9/v1", model="m"))
    assert (vlm.name, vlm.model, vlm.version) == ("vlm", "m", PROMPT_VERSION)
    assert factory.engine_name(PipelineSettings(workspace="w", server="http://x/v1")) == "vlm"
    with pytest.raises(ValueError, match="server URL"):
        factory.vlm_engine(PipelineSettings(workspace="w"))


def test_memo_keys_are_the_ones_earlier_releases_wrote() -> None:
    # Literal digests: a changed recipe would silently orphan every memoised page of every workspace.
    assert result_settings_key("vlm", "allenai/olmOCR-2-7B-1025-FP8", "v4", 1288) == "0816268acff78b71"
    assert result_settings_key("cpu", "rapidocr-x", "layout-3", 1288) == "972fb1247781cbb1"
    for settings in (PipelineSettings(workspace="w"), PipelineSettings(workspace="w", server="http://x/v1")):
        engine = factory.build_engine(settings)
        assert engine.memo_key(900) == result_settings_key(engine.name, engine.model, engine.version, 900)


class ShoutingEngine:
    """A new engine, written against the protocol alone: it reads each page's text layer in capitals."""

    name, model, version = "shouting", "caps-1", "r1"

    def __init__(self) -> None:
        self.read = 0

    def memo_key(self, target_dim: int) -> str:
        """The memo's settings key."""
        return result_settings_key(self.name, self.model, self.version, target_dim)

    async def run_pages(self, pages: Iterable[PageFactory], on_result: ResultSink) -> None:
        """Every page's text layer, upper-cased."""
        for factory_ in pages:
            page = factory_()
            self.read += 1
            on_result(PageResult(page.source_hash, page.page_num, page.text_layer.upper(), engine=self.name,
                                 model=self.model))  # fmt: skip


def test_a_new_engine_plugs_in_at_one_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = ShoutingEngine()
    entry = factory.EngineEntry("shouting", lambda s: s.model == "caps-1", lambda s: engine)
    monkeypatch.setattr(factory, "ENGINES", [entry, *factory.ENGINES])
    settings = PipelineSettings(workspace=str(tmp_path), model="caps-1")
    assert factory.engine_name(settings) == "shouting"
    ws = LocalWorkspace(tmp_path)
    rows = [{"source": "/in/a.pdf", "sha256": "a", "page_num": n, "png": b"not read", "width": 9, "height": 9,
             "text_layer": f"page {n}", "text_layer_trusted": True, "render_error": None} for n in (1, 2)]  # fmt: skip
    write_table(ws, pages_key("g1"), rows, PAGES_SCHEMA)
    first = ocr_with_engine(ws, "g1", factory.build_engine(settings), settings.target_longest_image_dim)
    assert first.pages == 2 and first.memo_hits == 0 and engine.read == 2
    written = read_rows(ws, ocr_key("g1"))
    assert [(r["text"], r["engine"], r["model"]) for r in written] == [("PAGE 1", "shouting", "caps-1"),
                                                                      ("PAGE 2", "shouting", "caps-1")]  # fmt: skip
    # Its memo key is its own: the rerun reads nothing again.
    again = ocr_with_engine(ws, "g1", factory.build_engine(settings), settings.target_longest_image_dim)
    assert again.memo_hits == 2 and engine.read == 2


def test_every_launcher_reports_the_same_metadata() -> None:
    result = OcrResult(pages=10, memo_hits=2, fallback_pages=1, error_pages=1, input_tokens=900, output_tokens=300,
                       seconds=12.5, languages={"en": 9, "none": 1})  # fmt: skip
    in_process = ocr_metadata(result, "/ws/manifests/ocr/g1.parquet", 3.6, "vlm", "m")
    # What a worker (subprocess or pod) reports, as its Pipes message arrives: plain numbers, languages as JSON.
    report = summary(result, factory.build_engine(PipelineSettings(workspace="w", server="http://x/v1", model="m")))
    arrived = {k: MetadataValue.json(v) if k == "languages" else v for k, v in report.items()}
    through_pipes = reported_metadata(arrived, "/ws/manifests/ocr/g1.parquet", 3.6, "cpu", "other")
    assert through_pipes == in_process
    assert in_process["usd_per_million_pages"] == 1562.5 and in_process["engine"] == "vlm"
