"""The work-group sensor: lists new inputs and asks for an inventory run, then runs every formed group not done.

A tick only lists: the sources (bounded, resumed through its cursor), the inventory's known sources, the done
markers, and the instance's partitions and runs. Reading inputs and forming groups is the `pdf_inventory`
run's work, with its logs in the UI; that run registers the partitions. A failed run is retried by Dagster's
run retries (`run_retries` in the instance, the `dagster/max_retries` tag set here), not by the sensor.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from dagster import (
    DagsterInstance,
    DagsterRunStatus,
    DefaultSensorStatus,
    RunRequest,
    RunsFilter,
    SensorDefinition,
    SensorEvaluationContext,
    SensorResult,
    sensor,
)

from ocr_pipeline.defs.assets import pdf_inventory
from ocr_pipeline.defs.canary import model_canary_job
from ocr_pipeline.defs.canary_gate import canary_gate
from ocr_pipeline.defs.jobs import inventory_job, ocr_job
from ocr_pipeline.defs.partitions import WORK_GROUPS
from ocr_pipeline.defs.resources import PipelineConfig, S3ClientResource
from ocr_pipeline.defs.step_inputs import open_step
from ocr_pipeline.settings import DeploymentSettings, PipelineSettings, deployment_from_env
from ocr_pipeline.stages.inventory_listing import known_sources, list_new_inputs
from ocr_pipeline.stages.pdf_inventory import list_groups
from ocr_pipeline.workspace.commit import done_groups
from ocr_pipeline.workspace.storage import Workspace

PARTITION_TAG = "dagster/partition"
IN_PROGRESS = [
    DagsterRunStatus.QUEUED,
    DagsterRunStatus.NOT_STARTED,
    DagsterRunStatus.STARTING,
    DagsterRunStatus.STARTED,
    DagsterRunStatus.CANCELING,
]


def retry_tags(max_retries: int) -> dict[str, str]:
    """Tags that hand a failed run to Dagster's run retries: `max_retries` reruns of every step."""
    # ALL_STEPS: a retry redoes the whole group, as a first run does (the page memo makes OCR'd pages free),
    # so the commit protocol's "a rerun rewrites every output, then the marker" holds for retries too.
    return {"dagster/max_retries": str(max_retries), "dagster/retry_strategy": "ALL_STEPS"}


def _inventory_run(run_key: str, config: dict[str, Any], tags: dict[str, str]) -> RunRequest:
    """An inventory_job run with this `InventoryConfig`: the UI shows what it scans in its run config."""
    run_config = {"ops": {pdf_inventory.key.path[-1]: {"config": config}}}
    return RunRequest(run_key=run_key, job_name=inventory_job.name, run_config=run_config, tags=tags)


def _key(kind: str, content: Any) -> str:
    """A run key naming what the run will do: the same request twice is launched once (Dagster skips it)."""
    return f"inventory:{kind}:{hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]}"


def _inventory_running(instance: DagsterInstance) -> bool:
    return bool(instance.get_runs(RunsFilter(job_name=inventory_job.name, statuses=IN_PROGRESS), limit=1))


def _cut_short_run(instance: DagsterInstance) -> str | None:
    """The run of the latest inventory materialization, if an archive was cut short by the expansion budget."""
    event = instance.get_latest_materialization_event(pdf_inventory.key)
    materialization = event.asset_materialization if event is not None else None
    more = materialization.metadata.get("more_to_scan") if materialization is not None else None
    return event.run_id if event is not None and more is not None and more.value is True else None


def inventory_request(
    context: SensorEvaluationContext,
    settings: PipelineSettings,
    workspace: Workspace,
    input_client: Any,
    state: dict[str, Any],
    max_new_inputs: int,
    tags: dict[str, str],
) -> tuple[RunRequest | None, str]:
    """An inventory run for work a scan left, or for what a bounded listing finds new; and a summary line."""
    cut_short = _cut_short_run(context.instance)
    if cut_short is not None and state.get("followed") != cut_short:
        # Asked first, right after that run: the members an archive's budget left out are new to the next scan,
        # but no listing shows them. Unbounded, as a scheduled scan, so it reaches the archive whatever precedes.
        state["followed"] = cut_short
        return _inventory_run(f"inventory:after:{cut_short}", {}, tags), "an archive to finish"
    groups = list_groups(workspace)
    cursor: dict[str, str] = state.get("listing") or {}
    found = list_new_inputs(
        settings.pdfs,
        known_sources(workspace, groups),
        input_client=input_client,
        cursor=cursor,
        max_new_inputs=max_new_inputs,
        follow_external_links=settings.follow_external_links,
    )
    # The next tick lists from where this one stopped; after a full pass it starts over.
    state["listing"] = found.next_cursor
    summary = f"{len(found.refs)} new inputs listed" + ("" if found.complete else " (listing continues next tick)")
    if found.refs:
        # The run scans the same window: the specs with new inputs, from this listing's start, with its bound.
        config = {
            "pdfs": found.specs,
            "start_after": {spec: key for spec, key in cursor.items() if spec in found.specs},
            "max_new_inputs": max_new_inputs,
        }
        content = [config, found.refs[0].source, found.refs[-1].source, len(found.refs)]
        return _inventory_run(_key("new", content), config, tags), summary
    registered = set(context.instance.get_dynamic_partitions(WORK_GROUPS))
    orphans = [g for g in groups if g not in registered]
    if orphans:
        # Groups a scan formed but did not register (it died in between, or a CLI run formed them): the
        # inventory run registers every group of the workspace.
        config = {"max_new_inputs": max_new_inputs}
        return _inventory_run(_key("register", orphans), config, tags), f"{summary}, {len(orphans)} groups to register"
    return None, summary


def ocr_requests(
    instance: DagsterInstance, window: list[str], done: set[str], max_runs: int, tags: dict[str, str]
) -> tuple[list[RunRequest], int]:
    """First runs for the window's groups that are not done and never had a run; and how many were checked.

    Any run of the partition counts, whatever its job (a UI backfill runs the same assets as `__ASSET_JOB`):
    a failed one is Dagster's to retry, and once its retries are spent, a person's.
    """
    pending = [g for g in window if g not in done]
    had_runs = (
        {run.tags.get(PARTITION_TAG) for run in instance.get_runs(RunsFilter(tags={PARTITION_TAG: pending}))}
        if pending
        else set()
    )
    requests: list[RunRequest] = []
    checked = 0
    for group in window:
        if len(requests) >= max_runs:
            break
        checked += 1
        if group in done or group in had_runs:
            continue
        requests.append(RunRequest(run_key=f"{group}:first", job_name=ocr_job.name, partition_key=group, tags=tags))
    return requests, checked


def _work_group_tick(
    context: SensorEvaluationContext,
    pipeline_config: PipelineConfig,
    workspace_s3: S3ClientResource,
    input_s3: S3ClientResource,
) -> SensorResult:
    """List new inputs and ask for an inventory run; run every registered group that is not done and never ran."""
    # Read at each tick, never at import: a tick must end well inside Dagster's 60 s sensor timeout.
    deployment = deployment_from_env()
    step = open_step(pipeline_config, workspace_s3, input_s3=input_s3)
    settings, workspace = step.settings, step.workspace
    state: dict[str, Any] = json.loads(context.cursor) if context.cursor else {}
    tags = retry_tags(deployment.sensor_max_retries)
    requests: list[RunRequest] = []
    if _inventory_running(context.instance):
        # What it will find is not known until it ends: list again after it, from the same cursor.
        summary = "an inventory run is in progress"
    else:
        input_client = step.input_client()
        bound = deployment.sensor_max_new_inputs
        inventory, summary = inventory_request(context, settings, workspace, input_client, state, bound, tags)
        if inventory is not None:
            requests.append(inventory)
    groups = list(context.instance.get_dynamic_partitions(WORK_GROUPS))
    # Round-robin over groups so a large workspace is checked across ticks, not all in one.
    start = int(state.get("next_group", 0)) % max(len(groups), 1)
    window = (groups[start:] + groups[:start])[: deployment.sensor_max_groups]
    # No partition spends GPU hours before the canary passed for this model and server (defs/canary_gate.py).
    canary_run, waiting = canary_gate(context.instance, settings, deployment, workspace)
    if canary_run is not None:
        requests.append(canary_run)
    runs: list[RunRequest] = []
    checked = 0
    if waiting is not None:
        summary = f"{summary}; {waiting}"
    else:
        # Only the done marker counts (it is written last); one listing instead of a request per group.
        done = done_groups(workspace)
        runs, checked = ocr_requests(context.instance, window, done, deployment.sensor_max_runs, tags)
    requests.extend(runs)
    state["next_group"] = (start + checked) % max(len(groups), 1)
    if deployment.sensor_max_retries and not context.instance.run_retries_enabled:
        context.log.warning("run_retries is off in this instance: a failed run waits for a person (see deploy/)")
    context.log.info(f"{summary}; {len(runs)} group runs requested")
    return SensorResult(run_requests=requests, cursor=json.dumps(state, sort_keys=True))


def build_work_group_sensor(interval_s: int) -> SensorDefinition:
    """The work-group sensor, ticking at most every `interval_s` seconds (the deployment's sensor_interval_s)."""
    return sensor(
        name="work_group_sensor",
        jobs=[inventory_job, ocr_job, model_canary_job],
        minimum_interval_seconds=interval_s,
        default_status=DefaultSensorStatus.STOPPED,
    )(_work_group_tick)


# The sensor at the declared default pace (no environment read), for tests and tools that evaluate one tick directly.
work_group_sensor = build_work_group_sensor(DeploymentSettings().sensor_interval_s)
