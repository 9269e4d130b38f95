"""The work-group sensor: scans the sources, registers new groups, requests runs for new or failed ones."""

from __future__ import annotations

import json
from typing import Any

from dagster import (
    DagsterRunStatus,
    DefaultSensorStatus,
    RunRequest,
    RunsFilter,
    SensorEvaluationContext,
    SensorResult,
    sensor,
)

from ocr_pipeline.defs.jobs import ocr_job
from ocr_pipeline.defs.partitions import work_groups
from ocr_pipeline.defs.resources import PipelineConfig, S3ClientResource, client_if_s3
from ocr_pipeline.settings import deployment_from_env
from ocr_pipeline.stages.pdf_inventory import list_groups, scan_inputs
from ocr_pipeline.workspace.commit import done_groups
from ocr_pipeline.workspace.storage import open_workspace

# A tick must end well inside Dagster's 60 s sensor timeout: bound what one tick scans and checks.
_DEPLOYMENT = deployment_from_env()
MAX_NEW_INPUTS_PER_TICK = _DEPLOYMENT.sensor_max_new_inputs
MAX_GROUPS_CHECKED_PER_TICK = _DEPLOYMENT.sensor_max_groups
MAX_RUNS_PER_TICK = _DEPLOYMENT.sensor_max_runs
# A partition whose runs keep failing is retried this many times by the sensor, then left for a person.
MAX_AUTO_RETRIES = _DEPLOYMENT.sensor_max_retries
IN_PROGRESS = {
    DagsterRunStatus.QUEUED,
    DagsterRunStatus.NOT_STARTED,
    DagsterRunStatus.STARTING,
    DagsterRunStatus.STARTED,
    DagsterRunStatus.CANCELING,
}


def _run_request_for(context: SensorEvaluationContext, group: str) -> RunRequest | None:
    """A run for a group without a shard: its first run, or one rerun per failed run, up to the cap."""
    runs = context.instance.get_runs(
        # By partition tag, not job name: a UI backfill runs the same assets as `__ASSET_JOB`, and a group it is
        # already running must not get a second run from the sensor.
        filters=RunsFilter(tags={"dagster/partition": group}),
        limit=MAX_AUTO_RETRIES + 2,
    )
    if not runs:
        return RunRequest(run_key=f"{group}:first", partition_key=group)
    latest = runs[0]
    if latest.status in IN_PROGRESS or latest.status == DagsterRunStatus.SUCCESS:
        return None
    failures = sum(1 for r in runs if r.status == DagsterRunStatus.FAILURE)
    if latest.status == DagsterRunStatus.FAILURE and failures <= MAX_AUTO_RETRIES:
        # Keyed by the failed run: each failure earns exactly one rerun, however often the sensor ticks.
        return RunRequest(run_key=f"{group}:after:{latest.run_id}", partition_key=group, tags={"ocr/retry": "1"})
    return None


@sensor(job=ocr_job, minimum_interval_seconds=60, default_status=DefaultSensorStatus.STOPPED)
def work_group_sensor(
    context: SensorEvaluationContext,
    pipeline_config: PipelineConfig,
    workspace_s3: S3ClientResource,
    input_s3: S3ClientResource,
) -> SensorResult:
    """Scan the sources, register new work groups, and run every group that is new or whose last run failed."""
    settings = pipeline_config.settings()
    workspace = open_workspace(settings.workspace, client_if_s3(workspace_s3, settings.workspace))
    state: dict[str, Any] = json.loads(context.cursor) if context.cursor else {}
    scan = scan_inputs(
        settings.pdfs,
        workspace,
        settings.pages_per_group,
        input_client=client_if_s3(input_s3, *settings.pdfs),
        cursor=state.get("listing"),
        max_new_inputs=MAX_NEW_INPUTS_PER_TICK,
        max_archive_bytes=settings.max_archive_bytes,
        follow_external_links=settings.follow_external_links,
    )
    groups = list_groups(workspace)
    registered = set(context.instance.get_dynamic_partitions(work_groups.name))
    to_register = [g for g in groups if g not in registered]
    # Round-robin over groups so a large workspace is checked across ticks, not all in one.
    start = int(state.get("next_group", 0)) % max(len(groups), 1)
    window = (groups[start:] + groups[:start])[:MAX_GROUPS_CHECKED_PER_TICK]
    requests: list[RunRequest] = []
    checked = 0
    # Only the done marker counts (it is written last); one listing instead of a request per group.
    done = done_groups(workspace)
    for group in window:
        if len(requests) >= MAX_RUNS_PER_TICK:
            break
        checked += 1
        if group in done:
            continue
        request = _run_request_for(context, group)
        if request is not None:
            requests.append(request)
    state = {"listing": scan.next_cursor, "next_group": (start + checked) % max(len(groups), 1)}
    context.log.info(
        f"{scan.new_inputs} new inputs, {len(scan.new_groups)} new groups, {len(requests)} runs requested"
        + ("" if scan.complete else " (listing continues next tick)")
    )
    return SensorResult(
        run_requests=requests,
        dynamic_partitions_requests=[work_groups.build_add_request(to_register)] if to_register else [],
        cursor=json.dumps(state, sort_keys=True),
    )
