"""Run every asset for the given inputs in this process (the `ocr-pipeline run` command), group by group."""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

from dagster import AssetSelection, DagsterInstance, materialize

from ocr_pipeline.defs.assets import dolma_shards, filtered_pdfs, page_images, pdf_inventory, vlm_ocr_outputs
from ocr_pipeline.defs.checks import ALL_CHECKS
from ocr_pipeline.defs.partitions import work_groups
from ocr_pipeline.defs.resources import PipelineConfig
from ocr_pipeline.defs.s3_resources import s3_resource_from_env
from ocr_pipeline.dolma import read_gzip_jsonl
from ocr_pipeline.layout import dolma_key, rejected_key
from ocr_pipeline.progress import NullProgress, ProgressSink, TqdmProgress
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.inventory import list_groups, read_group
from ocr_pipeline.storage import Workspace, open_workspace
from ocr_pipeline.tables import read_jsonl

# The data tests ride along: GROUP_ASSETS selects their checks, and a blocking failure fails the group's run.
ALL_ASSETS = [pdf_inventory, filtered_pdfs, page_images, vlm_ocr_outputs, dolma_shards, *ALL_CHECKS]
GROUP_ASSETS = AssetSelection.assets(filtered_pdfs, page_images, vlm_ocr_outputs, dolma_shards)
# Dagster's own step logs would drown the progress bar; warnings and errors still show.
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


@dataclass
class RunSummary:
    """What a local run produced, for the final report and the exit code."""

    groups: int = 0
    failed_groups: list[str] = field(default_factory=list)
    documents: int = 0
    pages: int = 0
    fallback_pages: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    unaccounted: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Every group ran and every input ended as a document or an explicit rejection."""
        return not self.failed_groups and not self.unaccounted


def run_resources(settings: PipelineSettings, progress: ProgressSink | None = None) -> dict[str, object]:
    """Every resource the assets need, for materialize() outside `dagster dev` (the CLI, tests)."""
    return {
        "pipeline_config": PipelineConfig.from_settings(settings),
        "progress": progress or NullProgress(),
        "workspace_s3": s3_resource_from_env("workspace"),
        "input_s3": s3_resource_from_env("input"),
    }


def run_inventory(settings: PipelineSettings, instance: DagsterInstance) -> list[str]:
    """Materialize pdf_inventory (scan, form groups, register them); returns every registered group."""
    materialize(
        ALL_ASSETS,
        selection=AssetSelection.assets(pdf_inventory),
        instance=instance,
        resources=run_resources(settings),
        run_config=QUIET,
        raise_on_error=True,
    )
    return list(instance.get_dynamic_partitions(work_groups.name))


def run_group(
    settings: PipelineSettings,
    group: str,
    instance: DagsterInstance | None = None,
    progress: ProgressSink | None = None,
) -> bool:
    """Materialize the per-group assets for one work group; returns whether every step succeeded."""
    instance = instance or DagsterInstance.ephemeral()
    if not instance.has_dynamic_partition(work_groups.name, group):
        instance.add_dynamic_partitions(work_groups.name, [group])
    result = materialize(
        ALL_ASSETS,
        selection=GROUP_ASSETS,
        partition_key=group,
        instance=instance,
        resources=run_resources(settings, progress),
        run_config=QUIET,
        raise_on_error=False,
    )
    return result.success


def _run_group_in_child(settings: PipelineSettings, group: str) -> tuple[str, bool]:
    return group, run_group(settings, group)


def _workspace_client(settings: PipelineSettings) -> object:
    """The same S3 client the assets get, for reading the workspace after the run."""
    return s3_resource_from_env("workspace").get_client() if settings.workspace.startswith("s3://") else None


def run_local(settings: PipelineSettings, *, show_progress: bool = True) -> RunSummary:
    """Inventory the inputs, then run every group without a shard yet; resumable by design."""
    started = time.monotonic()
    settings.validate()
    workspace = open_workspace(settings.workspace, _workspace_client(settings))
    instance = DagsterInstance.ephemeral()
    run_inventory(settings, instance)
    pending = [g for g in list_groups(workspace) if not workspace.exists(dolma_key(g))]
    summary = RunSummary(groups=len(pending))
    if settings.workers > 1 and len(pending) > 1:
        # Separate processes: the CPU engine and rendering hold the GIL, threads would not scale.
        context = multiprocessing.get_context("spawn")
        from tqdm import tqdm

        with (
            ProcessPoolExecutor(settings.workers, mp_context=context) as pool,
            tqdm(total=len(pending), unit="group", desc="groups", disable=not show_progress) as bar,
        ):
            futures = [pool.submit(_run_group_in_child, settings, g) for g in pending]
            for future in as_completed(futures):
                group, ok = future.result()
                bar.update(1)
                if not ok:
                    summary.failed_groups.append(group)
    else:
        progress = TqdmProgress(disable=not show_progress)
        for index, group in enumerate(pending, 1):
            progress.prefix = f"[{index}/{len(pending)}] "
            if not run_group(settings, group, instance, progress):
                summary.failed_groups.append(group)
        progress.close()
    for group in pending:
        if group not in summary.failed_groups:
            _account(workspace, group, summary)
    summary.seconds = time.monotonic() - started
    return summary


def _account(workspace: Workspace, group: str, summary: RunSummary) -> None:
    """Add a finished group's documents and rejections, and check every input is in one of them."""
    docs = read_gzip_jsonl(workspace.read_bytes(dolma_key(group)))
    ledger = read_jsonl(workspace, rejected_key(group))
    summary.documents += len(docs)
    for doc in docs:
        summary.pages += len(doc["attributes"]["pdf_page_numbers"])
        summary.fallback_pages += doc["metadata"]["total-fallback-pages"]
    summary.rejected.update(line["reason"] for line in ledger)
    ended = {d["metadata"]["Source-File"] for d in docs} | {line["source"] for line in ledger}
    summary.unaccounted += [r["source"] for r in read_group(workspace, group) if r["source"] not in ended]
