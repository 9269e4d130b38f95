"""The code location: one function builds every Dagster object; `dagster dev` loads `defs`, the CLI calls it too."""

from __future__ import annotations

from typing import Any

from dagster import Definitions, ExecutorDefinition, definitions, in_process_executor, multiprocess_executor

from ocr_pipeline.defs.assets import ALL_ASSETS
from ocr_pipeline.defs.canary import build_model_canary, model_canary_job
from ocr_pipeline.defs.catalog import catalog_assets
from ocr_pipeline.defs.checks import build_asset_checks, checks_dir
from ocr_pipeline.defs.jobs import inventory_job, ocr_job
from ocr_pipeline.defs.resources import pipeline_resources
from ocr_pipeline.defs.schedules import scan_schedules
from ocr_pipeline.defs.sensors import build_work_group_sensor
from ocr_pipeline.settings import DeploymentSettings, deployment_from_env


def executor_for(deployment: DeploymentSettings) -> ExecutorDefinition:
    """The executor of every job: in-process by default, `multiprocess`, or `k8s` (a pod per step)."""
    choice = deployment.executor
    if choice == "k8s":
        # Imported here to save start-up time: dagster_k8s pulls in the kubernetes client, which local
        # deployments never need.
        from dagster_k8s import k8s_job_executor

        return k8s_job_executor
    if choice == "multiprocess":
        return multiprocess_executor
    if choice not in ("", "in_process"):
        raise ValueError(f"OCR_PIPELINE_EXECUTOR must be in_process, multiprocess or k8s, not {choice!r}")
    # A process per step re-imports the code location for each of ocr_job's nine steps (four assets, five
    # check steps): 30+ s of start-up for a partition whose pages are all in the memo. The steps run one
    # after the other anyway, and the OCR step's real work happens in its own worker process or GPU pod.
    return in_process_executor


def build_definitions(
    resources: dict[str, Any] | None = None,
    *,
    with_automation: bool = True,
    deployment: DeploymentSettings | None = None,
) -> Definitions:
    """Every asset, check, job, sensor and schedule, wired to `resources` (default: from the environment).

    The deployment settings are read here, once, and handed to what they tune (executor, checks, schedules,
    the owners the catalog shows).
    """
    deployment = deployment_from_env() if deployment is None else deployment
    resources = resources if resources is not None else pipeline_resources()
    # The workspace only decides whether the assets show the `s3` kind: a plain value (never a secret).
    workspace = str(getattr(resources.get("pipeline_config"), "workspace", "") or "")
    return Definitions(
        assets=catalog_assets(
            [*ALL_ASSETS, build_model_canary(deployment.canary_min_pass_rate)], deployment.asset_owners, workspace
        ),
        asset_checks=build_asset_checks(checks_dir(deployment)),
        jobs=[inventory_job, ocr_job, model_canary_job],
        sensors=[build_work_group_sensor(deployment.sensor_interval_s)] if with_automation else [],
        schedules=scan_schedules(deployment) if with_automation else [],
        resources=resources,
        executor=executor_for(deployment),
    )


@definitions
def defs() -> Definitions:
    """The code location `dagster dev` and the code server load: built when Dagster asks, not at import."""
    return build_definitions()
