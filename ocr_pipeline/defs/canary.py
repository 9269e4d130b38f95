"""The model canary asset: the configured engine and server on the shipped test pages, before any backfill."""

import dataclasses
from typing import Any

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetKey,
    AssetsDefinition,
    Failure,
    MaterializeResult,
    MetadataValue,
    TableColumn,
    TableRecord,
    TableSchema,
    asset,
    define_asset_job,
)

from ocr_pipeline.canary.evaluate import EvalResult
from ocr_pipeline.canary.run_canary import run_canary
from ocr_pipeline.canary.verdict import CanaryVerdict, canary_key
from ocr_pipeline.defs.catalog import OCR_GROUP
from ocr_pipeline.defs.resources import PipelineConfig, S3ClientResource
from ocr_pipeline.defs.step_inputs import open_step
from ocr_pipeline.settings import PipelineSettings, read_env

MODEL_CANARY = AssetKey("model_canary")
PASS_RATE_CHECK = "canary_pass_rate"
_TYPE_TABLE = TableSchema(
    columns=[
        TableColumn("type", "string"),
        TableColumn("passed", "int"),
        TableColumn("total", "int"),
        TableColumn("rate", "float"),
    ]
)

model_canary_job = define_asset_job("model_canary_job", selection=[MODEL_CANARY])


def canary_metadata(result: EvalResult, verdict: CanaryVerdict, marker: str) -> dict[str, Any]:
    """What the UI shows of a canary run: the rate, its table per test type, what was judged, the failures."""
    return {
        "pass_rate": MetadataValue.float(verdict.pass_rate),
        "min_pass_rate": MetadataValue.float(verdict.min_pass_rate),
        "passed": MetadataValue.bool(verdict.passed),
        "by_type": MetadataValue.table([TableRecord(row) for row in result.table_rows()], schema=_TYPE_TABLE),
        "engine": verdict.engine,
        "model": verdict.model,
        "server": verdict.server or "(embedded CPU engine)",
        "fingerprint": verdict.fingerprint,
        "pages": MetadataValue.int(result.pages),
        "fallback_pages": MetadataValue.int(result.fallback_pages),
        # Pages whose every answer the engine judged degenerate, and why: more than one in twenty fails the canary.
        "model_failure_pages": MetadataValue.int(len(result.model_failures)),
        "model_failures": MetadataValue.md(
            "\n".join(f"- `{page}`: {why}" for page, why in list(result.model_failures.items())[:40]) or "none"
        ),
        "seconds": MetadataValue.float(round(result.seconds, 1)),
        "failures": MetadataValue.md("\n".join(f"- `{t}`" for t in result.failures[:40]) or "none"),
        "verdict_marker": marker,
    }


def canary_settings(settings: PipelineSettings) -> PipelineSettings:
    """The settings the canary judges: on Kubernetes with a shared vLLM service, that service.

    With a vLLM sidecar in each GPU pod there is no server outside a partition's pod to ask, so a canary that is
    asked for (OCR_PIPELINE_CANARY=on) fails with a one-line reason instead of judging the CPU engine by mistake.
    """
    if settings.ocr_launcher != "k8s" or settings.server:
        return settings
    # Imported here to save start-up time: the Kubernetes settings only where they apply.
    from ocr_pipeline.launch.k8s.config import K8sLaunchConfig

    config = read_env(K8sLaunchConfig)
    if config.shared_server:
        return dataclasses.replace(settings, server=config.server_url())
    return settings


def require_server_for_canary(settings: PipelineSettings) -> None:
    """Refuse to run the canary where its answers would not be the partitions' (a per-pod vLLM sidecar)."""
    if settings.ocr_launcher == "k8s" and not settings.server:
        raise Failure(
            "model_canary: each GPU pod runs its own vLLM sidecar, so no server is reachable from this run; "
            "set OCR_PIPELINE_K8S_VLLM_SERVICE_URL to a shared vLLM service, or OCR_PIPELINE_CANARY=off"
        )


def build_model_canary(min_pass_rate: float) -> AssetsDefinition:
    """The `model_canary` asset and its blocking pass-rate check, judging at `min_pass_rate`."""

    @asset(
        key=MODEL_CANARY,
        group_name=OCR_GROUP,
        kinds={"pdf", "json"},
        tags={"stage": "canary"},
        check_specs=[
            AssetCheckSpec(
                PASS_RATE_CHECK,
                asset=MODEL_CANARY,
                blocking=True,
                description=f"at least {min_pass_rate:.0%} of the canary's olmOCR-Bench tests pass",
            )
        ],
    )
    def model_canary(
        context: AssetExecutionContext, pipeline_config: PipelineConfig, workspace_s3: S3ClientResource
    ) -> MaterializeResult:
        """The configured engine and server scored on the shipped canary pages; the sensor waits for a pass."""
        settings = canary_settings(pipeline_config.settings())
        require_server_for_canary(settings)
        workspace = open_step(pipeline_config, workspace_s3, settings=settings).workspace

        def progress(done: int, total: int) -> None:
            if done % max(1, total // 5) == 0 or done == total:  # five lines a run, not one a page
                context.log.info(f"canary: {done}/{total} pages read")

        outcome = run_canary(settings, workspace, min_pass_rate, run_id=context.run.run_id, progress=progress)
        verdict = outcome.verdict
        (context.log.info if verdict.passed else context.log.error)(verdict.summary())
        metadata = canary_metadata(outcome.result, verdict, canary_key(verdict.fingerprint))
        check = AssetCheckResult(
            check_name=PASS_RATE_CHECK,
            passed=verdict.passed,
            severity=AssetCheckSeverity.ERROR,
            metadata={
                "pass_rate": MetadataValue.float(verdict.pass_rate),
                "min_pass_rate": MetadataValue.float(min_pass_rate),
                "fingerprint": verdict.fingerprint,
                "summary": verdict.summary(),
            },
        )
        return MaterializeResult(metadata=metadata, check_results=[check])

    return model_canary
