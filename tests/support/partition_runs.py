"""One partition driven in-process for the gate tests: its pages rendered and keyed as the fake VLM server keys
them, and its checks' evaluations read back from the Dagster instance as the UI shows them."""

from __future__ import annotations

import io
from typing import Any

from dagster import AssetCheckKey, AssetKey, AssetSelection, DagsterInstance, materialize
from PIL import Image

from ocr_pipeline.defs.materialize import ASSETS_AND_CHECKS, run_resources
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.keys import pages_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_rows
from tests.support.vlm_protocol import hist_key


def render_pages(settings: PipelineSettings, instance: DagsterInstance, group: str) -> None:
    """Materialize the group's filtered_pdfs and page_images only: its pages rendered, nothing sent to a server."""
    selection = AssetSelection.assets("filtered_pdfs", "page_images")
    resources = run_resources(settings)
    result = materialize(
        ASSETS_AND_CHECKS, selection=selection, partition_key=group, instance=instance, resources=resources
    )
    assert result.success


def keyed_pages(settings: PipelineSettings, group: str) -> list[tuple[str, dict[str, Any]]]:
    """Each rendered page row of the group with the server's key for its image.

    The renderer is deterministic, so a later run of the group sends the same images under the same keys.
    """
    rows = read_rows(LocalWorkspace(settings.workspace), pages_key(group), ["source", "page_num", "png"])
    return [(hist_key(Image.open(io.BytesIO(row["png"])).convert("L")), row) for row in rows]


def ocr_check(name: str) -> AssetCheckKey:
    """The key of one of vlm_ocr_outputs' data tests (dbt_like_checks/vlm_ocr_outputs.yml), by its name."""
    return AssetCheckKey(AssetKey("vlm_ocr_outputs"), name)


def latest_evaluation(instance: DagsterInstance, key: AssetCheckKey, group: str) -> tuple[str, dict[str, object]]:
    """Status and metadata of the check's latest evaluation on one partition."""
    for record in instance.event_log_storage.get_asset_check_execution_history(key, limit=20):
        evaluation = record.event.dagster_event.event_specific_data
        if evaluation.partition == group:
            return record.status.value, {k: v.value for k, v in evaluation.metadata.items()}
    raise AssertionError(f"{key} never ran on {group}")
