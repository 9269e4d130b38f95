"""The code location's jobs run in this process: what `ocr-pipeline run` drives, one work group at a time."""

from __future__ import annotations

from typing import Any

from dagster import AssetSelection, DagsterInstance, Definitions

from ocr_pipeline.defs.assets import ALL_ASSETS, dolma_shards, filtered_pdfs, page_images, vlm_ocr_outputs
from ocr_pipeline.defs.checks import build_asset_checks
from ocr_pipeline.defs.definitions import build_definitions
from ocr_pipeline.defs.jobs import inventory_job, ocr_job
from ocr_pipeline.defs.partitions import work_groups
from ocr_pipeline.defs.resources import pipeline_resources
from ocr_pipeline.progress import ProgressSink
from ocr_pipeline.settings import PipelineSettings

# Assets plus their data tests, for tests that materialize a selection; GROUP_ASSETS are one partition's assets.
ASSETS_AND_CHECKS = [*ALL_ASSETS, *build_asset_checks()]
GROUP_ASSETS = AssetSelection.assets(filtered_pdfs, page_images, vlm_ocr_outputs, dolma_shards)
# Dagster's own step logs would drown the progress bar; warnings and errors still show.
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def new_instance() -> DagsterInstance:
    """A throwaway instance for one CLI run: the workspace, not Dagster's storage, records what is done."""
    return DagsterInstance.ephemeral()


def run_resources(settings: PipelineSettings, progress: ProgressSink | None = None) -> dict[str, Any]:
    """Every resource the assets need, for these settings (the CLI, tests)."""
    return pipeline_resources(settings, progress)


def _definitions(settings: PipelineSettings, progress: ProgressSink | None = None) -> Definitions:
    return build_definitions(run_resources(settings, progress), with_automation=False)


def run_inventory(settings: PipelineSettings, instance: DagsterInstance) -> list[str]:
    """Run inventory_job (scan, form groups, register them); returns every registered group."""
    job = _definitions(settings).resolve_job_def(inventory_job.name)
    job.execute_in_process(instance=instance, run_config=QUIET, raise_on_error=True)
    return list(instance.get_dynamic_partitions(work_groups.name))


def run_group(
    settings: PipelineSettings,
    group: str,
    instance: DagsterInstance | None = None,
    progress: ProgressSink | None = None,
) -> bool:
    """Run ocr_job for one work group (its assets and their checks); returns whether every step succeeded."""
    instance = instance or new_instance()
    if not instance.has_dynamic_partition(work_groups.name, group):
        instance.add_dynamic_partitions(work_groups.name, [group])
    job = _definitions(settings, progress).resolve_job_def(ocr_job.name)
    result = job.execute_in_process(instance=instance, partition_key=group, run_config=QUIET, raise_on_error=False)
    return result.success
