"""Run every asset for the given inputs in this process (the `ocr-pipeline run` command), group by group."""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

from tqdm import tqdm

from ocr_pipeline.defs.materialize import new_instance, run_group, run_inventory
from ocr_pipeline.progress import TqdmProgress
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.pdf_inventory import list_groups, read_group
from ocr_pipeline.workspace.commit import pending_groups
from ocr_pipeline.workspace.keys import dolma_key, rejected_key
from ocr_pipeline.workspace.s3 import client_from_env
from ocr_pipeline.workspace.storage import Workspace, open_workspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl


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


def _run_group_in_child(settings: PipelineSettings, group: str) -> tuple[str, bool]:
    return group, run_group(settings, group)


def _workspace_client(settings: PipelineSettings) -> object:
    """The same S3 client the assets get, for reading the workspace after the run."""
    return client_from_env("workspace") if settings.workspace.startswith("s3://") else None


def run_local(settings: PipelineSettings, *, show_progress: bool = True) -> RunSummary:
    """Inventory the inputs, then run every group without a shard yet; resumable by design."""
    started = time.monotonic()
    settings.validate()
    workspace = open_workspace(settings.workspace, _workspace_client(settings))
    instance = new_instance()
    run_inventory(settings, instance)
    # Only the done marker counts: a shard without it is a group that stopped midway through its commit.
    pending = pending_groups(workspace, list_groups(workspace))
    summary = RunSummary(groups=len(pending))
    if settings.workers > 1 and len(pending) > 1:
        # Separate processes: the CPU engine and rendering hold the GIL, threads would not scale.
        context = multiprocessing.get_context("spawn")
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
