"""Where the OCR step of `vlm_ocr_outputs` runs: the CPU engine in-process, the VLM worker as a Pipes subprocess,
or a GPU pod per partition on Kubernetes."""

from __future__ import annotations

import os
import sys

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, PipesSubprocessClient

from ocr_pipeline.engines.base import make_cpu_engine, result_settings_key
from ocr_pipeline.progress import ProgressSink
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.ocr_stream import GroupStream, finish_group_stream, take_group_stream
from ocr_pipeline.stages.page_images import expected_pages
from ocr_pipeline.stages.vlm_ocr_outputs import OcrResult, ocr_group, sequential_runner
from ocr_pipeline.worker import PARENT_PID_ENV, worker_invocation
from ocr_pipeline.workspace.keys import ocr_key
from ocr_pipeline.workspace.storage import Workspace


def cost_metadata(pages: int, memo_hits: int, seconds: float, hourly: float) -> dict[str, object]:
    """Dollars per million pages at `hourly` dollars an hour (the machine's or GPU's price), when it is set."""
    read = pages - memo_hits  # pages served from the memo cost nothing
    if hourly <= 0 or read <= 0 or seconds <= 0:
        return {}
    per_page_s = seconds / read
    return {"usd_per_million_pages": round(hourly / 3600 * per_page_s * 1_000_000, 2), "hourly_cost_usd": hourly}


def ocr_metadata(result: OcrResult, uri: str, hourly: float, engine: str = "", model: str = "") -> dict[str, object]:
    """Asset metadata of one group's OCR: which engine and model, counts, tokens, speed."""
    return {
        **({"engine": engine, "model": model} if engine else {}),
        "pages": result.pages,
        "memo_hits": result.memo_hits,
        "fallback_pages": result.fallback_pages,
        "error_pages": result.error_pages,
        "input_tokens": result.input_tokens,
        "output_tokens": result.output_tokens,
        "seconds": round(result.seconds, 2),
        "pages_per_second": round(result.pages_per_second, 3),
        "languages": MetadataValue.json(result.languages),
        "results": MetadataValue.path(uri),
        **cost_metadata(result.pages, result.memo_hits, result.seconds, hourly),
    }


def run_vlm_worker(
    context: AssetExecutionContext, settings: PipelineSettings, workspace: Workspace
) -> MaterializeResult:
    """Launch the worker as a subprocess speaking Pipes; its report becomes the materialization."""
    args, env = worker_invocation(settings, context.partition_key)
    # The child gets our environment too (PATH, AWS settings) plus the worker's own variables, and our pid: if we
    # are killed while it starts, it sees that and exits instead of running on as an orphan.
    env = {**os.environ, **env, PARENT_PID_ENV: str(os.getpid())}
    completed = PipesSubprocessClient().run(command=[sys.executable, *args], context=context, env=env)
    result = completed.get_materialize_result()
    uri = f"{workspace.uri}/{ocr_key(context.partition_key)}"
    reported = result.metadata or {}
    numbers = {k: getattr(reported.get(k), "value", 0) or 0 for k in ("pages", "memo_hits", "seconds")}
    cost = cost_metadata(
        int(numbers["pages"]), int(numbers["memo_hits"]), float(numbers["seconds"]), settings.hourly_cost_usd
    )
    # The worker reports its engine and model; the settings say them too if an older worker image does not.
    named = {"engine": reported.get("engine", "vlm"), "model": reported.get("model", settings.model)}
    return MaterializeResult(metadata={**named, **reported, **cost, "results": MetadataValue.path(uri)})


def collect_streamed(
    context: AssetExecutionContext,
    settings: PipelineSettings,
    progress: ProgressSink,
    workspace: Workspace,
    streamed: GroupStream,
) -> MaterializeResult:
    """The pages page_images already streamed to the server in this process: no worker, no second send."""
    group = context.partition_key
    progress.phase(f"ocr {group}", expected_pages(workspace, group))
    result = finish_group_stream(workspace, group, streamed, progress.advance)
    context.log.info(f"{result.pages} pages streamed while rendering ({result.memo_hits} from memo)")
    uri = f"{workspace.uri}/{ocr_key(group)}"
    return MaterializeResult(metadata=ocr_metadata(result, uri, settings.hourly_cost_usd, "vlm", settings.model))


def run_ocr_step(
    context: AssetExecutionContext, settings: PipelineSettings, progress: ProgressSink, workspace: Workspace
) -> MaterializeResult:
    """OCR the partition's pages and return the asset's materialization."""
    if settings.ocr_launcher == "k8s":
        # Imported here to save start-up time: dagster_k8s pulls in the kubernetes client, which local runs
        # never need.
        from ocr_pipeline.launch.k8s.pipes import run_k8s_worker

        return run_k8s_worker(context, settings)
    if settings.server:
        streamed = take_group_stream(workspace, context.partition_key)
        if streamed is not None:
            return collect_streamed(context, settings, progress, workspace, streamed)
        return run_vlm_worker(context, settings, workspace)
    group = context.partition_key
    engine = make_cpu_engine()
    key = result_settings_key(engine.name, engine.model, engine.revision, settings.target_longest_image_dim)
    progress.phase(f"ocr {group}", expected_pages(workspace, group))
    result = ocr_group(workspace, group, sequential_runner(engine), key, progress.advance)
    context.log.info(f"{result.pages} pages ({result.memo_hits} from memo) in {result.seconds:.1f}s")
    uri = f"{workspace.uri}/{ocr_key(group)}"
    metadata = ocr_metadata(result, uri, settings.hourly_cost_usd, engine.name, engine.model)
    return MaterializeResult(metadata=metadata)
