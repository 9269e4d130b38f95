"""What the work-group sensor asks before launching partitions: has the canary passed for this configuration?

The answer is read from the workspace's verdict marker alone (written last by the canary). Owed and not running:
the sensor requests a `model_canary_job` run and launches no partition. Failed: no partition, a log line naming
the rate and what to do. A new model, server, prompt or test set is a new fingerprint, so a canary is owed again.
"""

from __future__ import annotations

from dagster import DagsterInstance, RunRequest, RunsFilter

from ocr_pipeline.canary.run_canary import canary_required, fingerprint_for
from ocr_pipeline.canary.verdict import public_server, read_verdict
from ocr_pipeline.defs.canary import canary_settings, model_canary_job
from ocr_pipeline.settings import DeploymentSettings, PipelineSettings
from ocr_pipeline.workspace.storage import Workspace

CANARY_TAG = "ocr-pipeline/canary"


def canary_gate(
    instance: DagsterInstance,
    settings: PipelineSettings,
    deployment: DeploymentSettings,
    workspace: Workspace,
) -> tuple[RunRequest | None, str | None]:
    """(a canary run to request, why partitions wait); (None, None) when partitions may run."""
    settings = canary_settings(settings)
    if not canary_required(settings, deployment):
        return None, None
    fingerprint = fingerprint_for(settings, deployment.canary_min_pass_rate)
    verdict = read_verdict(workspace, fingerprint)
    if verdict is not None and verdict.passed:
        return None, None
    if verdict is not None:
        return None, f"{verdict.summary()}; no partition runs until it passes: fix the server or model, then " + (
            "materialize model_canary"
        )
    target = f"model {settings.model!r} at {public_server(settings.server)}"
    runs = instance.get_runs(RunsFilter(job_name=model_canary_job.name, tags={CANARY_TAG: fingerprint}), limit=1)
    if not runs:
        # No run retries: a rate below the threshold fails the same way again, and a crash is worth a look.
        request = RunRequest(
            run_key=f"canary:{fingerprint}", job_name=model_canary_job.name, tags={CANARY_TAG: fingerprint}
        )
        return request, f"model canary requested for {target}; partitions wait for its verdict"
    if not runs[0].is_finished:
        return None, f"the model canary for {target} is running (run {runs[0].run_id[:8]}); partitions wait"
    return None, (
        f"the model canary run {runs[0].run_id[:8]} for {target} ended without a verdict ({runs[0].status.value}); "
        "see its logs, then materialize model_canary"
    )
