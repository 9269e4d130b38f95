"""page_images and vlm_ocr_outputs are one op: each asset still materializes alone, and a blocking check of
page_images still holds back the OCR computed in the same op."""

from __future__ import annotations

from pathlib import Path

from dagster import AssetCheckKey, AssetKey, AssetSelection, DagsterInstance, materialize

from ocr_pipeline.defs.assets import ALL_ASSETS
from ocr_pipeline.defs.checks import build_asset_checks
from ocr_pipeline.defs.materialize import ASSETS_AND_CHECKS, run_inventory, run_resources
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.keys import dolma_key, ocr_key, pages_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_rows
from tests.support.builders import pdfgen
from tests.support.vlm_server import VlmTestServer


def _group(tmp_path: Path, server: VlmTestServer) -> tuple[PipelineSettings, DagsterInstance, str]:
    pdfgen.write(tmp_path / "in" / "a.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:2], pdfgen.SENTENCES[2:4]]))
    settings = PipelineSettings(
        workspace=str(tmp_path / "ws"), pdfs=[str(tmp_path / "in")], server=server.url, model="olmocr-test"
    )
    instance = DagsterInstance.ephemeral()
    [group] = run_inventory(settings, instance)
    return settings, instance, group


def test_each_asset_materializes_alone(tmp_path: Path) -> None:
    with VlmTestServer(model="olmocr-test") as server:
        settings, instance, group = _group(tmp_path, server)
        ws = LocalWorkspace(settings.workspace)

        def run(*keys: str) -> None:
            selection = AssetSelection.assets(*keys)
            result = materialize(ASSETS_AND_CHECKS, selection=selection, partition_key=group, instance=instance,
                                 resources=run_resources(settings))  # fmt: skip
            assert result.success
            assert {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()} == set(keys)

        run("filtered_pdfs", "page_images")
        # Rendering alone sends nothing: no OCR step of this run would collect the answers.
        assert ws.exists(pages_key(group)) and not ws.exists(ocr_key(group)) and server.requests == []
        run("vlm_ocr_outputs")
        assert len(server.requests) == 2 and len(read_rows(ws, ocr_key(group))) == 2
        meta = instance.get_latest_materialization_event(AssetKey("vlm_ocr_outputs")).asset_materialization.metadata
        assert meta["engine"].value == "vlm" and meta["model"].value == "olmocr-test" and meta["pages"].value == 2


BLOCKING_PAGE_TEST = """\
version: 1
assets:
  page_images:
    tests:
      - expression:
          name: pages_are_huge
          blocking: true
          row: "width > 100000"
"""


def test_a_failed_blocking_check_of_page_images_holds_back_the_ocr_of_its_op(tmp_path: Path) -> None:
    checks = tmp_path / "checks"
    checks.mkdir()
    (checks / "page_images.yml").write_text(BLOCKING_PAGE_TEST)
    with VlmTestServer(model="olmocr-test") as server:
        settings, instance, group = _group(tmp_path, server)
        result = materialize([*ALL_ASSETS, *build_asset_checks(checks)], partition_key=group, instance=instance,
                             resources=run_resources(settings), raise_on_error=False)  # fmt: skip
        ws = LocalWorkspace(settings.workspace)
        assert not result.success  # the blocking check's step fails the run, as before the op was one
        evaluation = instance.event_log_storage.get_asset_check_execution_history(
            AssetCheckKey(AssetKey("page_images"), "pages_are_huge"), limit=1
        )[0]
        assert evaluation.status.value == "FAILED"
        materialized = {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
        assert "page_images" in materialized and "vlm_ocr_outputs" not in materialized
        assert ws.exists(pages_key(group)) and not ws.exists(ocr_key(group)) and not ws.exists(dolma_key(group))
