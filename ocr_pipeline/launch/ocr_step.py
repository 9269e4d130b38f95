"""Where the OCR step of `vlm_ocr_outputs` runs: pages already streamed collected in-process, the VLM worker as a
Pipes subprocess, a GPU pod per partition on Kubernetes, or the engine in this process (the CPU engine)."""

from __future__ import annotations

import os
import sys
from typing import Any

from dagster import AssetExecutionContext, PipesSubprocessClient

from ocr_pipeline.engines.factory import build_engine
from ocr_pipeline.launch.ocr_metadata import ocr_metadata, pipes_report, reported_metadata
from ocr_pipeline.progress import ProgressSink
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.ocr_stream import GroupStream, finish_group_stream
from ocr_pipeline.stages.page_images import expected_pages
from ocr_pipeline.stages.vlm_ocr_outputs import ocr_with_engine
from ocr_pipeline.worker import PARENT_PID_ENV, worker_invocation
from ocr_pipeline.workspace.keys import ocr_key
from ocr_pipeline.workspace.storage import Workspace


def run_vlm_worker(context: AssetExecutionContext, settings: PipelineSettings, workspace: Workspace) -> dict[str, Any]:
    """Launch the worker as a subprocess speaking Pipes; its report becomes the materialization's metadata."""
    args, env = worker_invocation(settings, context.partition_key)
    # The child gets our environment too (PATH, AWS settings) plus the worker's own variables, and our pid: if we
    # are killed while it starts, it sees that and exits instead of running on as an orphan.
    env = {**os.environ, **env, PARENT_PID_ENV: str(os.getpid())}
    completed = PipesSubprocessClient().run(command=[sys.executable, *args], context=context, env=env)
    reported = pipes_report(completed)
    uri = f"{workspace.uri}/{ocr_key(context.partition_key)}"
    return reported_metadata(reported, uri, settings.hourly_cost_usd, "vlm", settings.model)


def run_ocr_step(
    context: AssetExecutionContext,
    settings: PipelineSettings,
    progress: ProgressSink,
    workspace: Workspace,
    streamed: GroupStream | None = None,
    input_client: Any = None,
) -> dict[str, Any]:
    """OCR the partition's pages; returns the asset's metadata. `streamed`: the pages already sent while rendering;
    `input_client`: the input bucket's client, for the full layout of pages that fall back (a worker makes its own)."""
    group = context.partition_key
    uri = f"{workspace.uri}/{ocr_key(group)}"
    dim = settings.target_longest_image_dim
    if streamed is not None:
        # The pages this op streamed to the server while rendering: no worker, no second send.
        progress.phase(f"ocr {group}", expected_pages(workspace, group))
        result = finish_group_stream(
            workspace, group, streamed, dim, progress.advance, input_client, pdf_memory_mb=settings.pdf_memory_mb
        )
        context.log.info(f"{result.pages} pages streamed while rendering ({result.memo_hits} from memo)")
        return ocr_metadata(result, uri, settings.hourly_cost_usd, streamed.engine.name, streamed.engine.model)
    if settings.ocr_launcher == "k8s":
        # Imported here to save start-up time: dagster_k8s pulls in the kubernetes client, which local runs
        # never need.
        from ocr_pipeline.launch.k8s.pipes import run_k8s_worker

        return run_k8s_worker(context, settings, workspace)
    if settings.server:
        return run_vlm_worker(context, settings, workspace)
    engine = build_engine(settings)
    progress.phase(f"ocr {group}", expected_pages(workspace, group))
    result = ocr_with_engine(
        workspace, group, engine, dim, progress.advance, input_client=input_client, pdf_memory_mb=settings.pdf_memory_mb
    )
    context.log.info(f"{result.pages} pages ({result.memo_hits} from memo) in {result.seconds:.1f}s")
    return ocr_metadata(result, uri, settings.hourly_cost_usd, engine.name, engine.model)
