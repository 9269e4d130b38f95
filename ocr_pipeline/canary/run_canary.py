"""The canary for one configuration: which fingerprint it owes, running it, and recording its verdict.

The `model_canary` asset, `ocr-pipeline eval` and the sensor all go through here, so the three agree on what
"the canary for the configured model and server" is.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ocr_pipeline.canary.bench_set import BenchSet, load_bench_set, shipped_tests_file
from ocr_pipeline.canary.evaluate import EvalResult, evaluate
from ocr_pipeline.canary.verdict import (
    MAX_MODEL_FAILURE_SHARE,
    CanaryVerdict,
    canary_fingerprint,
    now_iso,
    public_server,
    read_verdict,
    write_verdict,
)
from ocr_pipeline.engines.factory import build_engine, engine_identity, engine_name
from ocr_pipeline.routing.router import page_router
from ocr_pipeline.settings import DeploymentSettings, PipelineSettings
from ocr_pipeline.workspace.storage import Workspace


@functools.lru_cache(maxsize=1)
def shipped_set_digest() -> str:
    """The shipped set's digest (read once per process: the sensor asks on every tick)."""
    return load_bench_set(shipped_tests_file()).digest


def fingerprint_for(settings: PipelineSettings, min_pass_rate: float, set_digest: str | None = None) -> str:
    """The fingerprint of the canary these settings owe (the shipped set unless `set_digest`)."""
    name, model, version = engine_identity(settings)
    digest = set_digest or shipped_set_digest()
    return canary_fingerprint(name, version, model, settings.server, digest, min_pass_rate)


def canary_required(settings: PipelineSettings, deployment: DeploymentSettings) -> bool:
    """Whether partitions wait for a passed canary: `auto` asks it of server engines (GPU hours), `on` of all."""
    if deployment.canary == "auto":
        return engine_name(settings) != "cpu"
    return deployment.canary == "on"


@dataclass(frozen=True)
class CanaryOutcome:
    """A canary run's scores and its verdict (recorded in the workspace only for the shipped set)."""

    result: EvalResult
    fingerprint: str
    verdict: CanaryVerdict


def run_canary(
    settings: PipelineSettings,
    workspace: Workspace | None,
    min_pass_rate: float,
    *,
    tests_file: Path | str | None = None,
    run_id: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> CanaryOutcome:
    """Score the configured engine on the shipped set (or `tests_file`); record the verdict for the shipped set.

    A user's own set is scored the same way but writes no marker: the sensor trusts only the shipped canary, read by
    the model alone (`route model`); with `route auto` the routed pages are read from their text layer, and the score
    is the routed pipeline's.
    """
    bench: BenchSet = load_bench_set(tests_file or shipped_tests_file())
    shipped = bench.tests_file.resolve() == shipped_tests_file().resolve()
    name, model, _ = engine_identity(settings)
    fingerprint = fingerprint_for(settings, min_pass_rate, bench.digest)
    router = page_router(settings)
    result = evaluate(bench, build_engine(settings), settings.target_longest_image_dim, progress, router)
    verdict = CanaryVerdict(
        fingerprint=fingerprint,
        passed=result.scored > 0
        and result.pass_rate >= min_pass_rate
        and result.model_failure_share <= MAX_MODEL_FAILURE_SHARE,
        pass_rate=round(result.pass_rate, 4),
        min_pass_rate=min_pass_rate,
        engine=name,
        model=model,
        server=public_server(settings.server),
        tests=result.scored,
        pages=result.pages,
        fallback_pages=result.fallback_pages,
        seconds=round(result.seconds, 1),
        finished_at=now_iso(),
        run_id=run_id,
        by_type=result.by_type,
        model_failure_pages=len(result.model_failures),
    )
    # A routed eval scores the routed pipeline, not the model alone: the sensor's marker must say the model is sound.
    if shipped and workspace is not None and router is None:
        write_verdict(workspace, verdict)  # last: the marker the sensor reads
    return CanaryOutcome(result, fingerprint, verdict)


def current_verdict(settings: PipelineSettings, workspace: Workspace, min_pass_rate: float) -> CanaryVerdict | None:
    """The recorded verdict for the configuration `settings` describe, None when the canary is owed."""
    return read_verdict(workspace, fingerprint_for(settings, min_pass_rate))
