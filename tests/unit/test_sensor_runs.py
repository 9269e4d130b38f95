"""Which runs the work-group sensor asks for: one first run, one rerun per failure, none while any run is going."""

from __future__ import annotations

from dagster import DagsterInstance, DagsterRun, DagsterRunStatus, build_sensor_context

from ocr_pipeline.defs.sensors import _run_request_for


def _add_run(instance: DagsterInstance, job: str, group: str, status: DagsterRunStatus, run_id: str) -> None:
    instance.add_run(DagsterRun(job_name=job, run_id=run_id, tags={"dagster/partition": group}, status=status))


def test_a_backfill_run_of_the_group_counts_like_an_ocr_job_run() -> None:
    with DagsterInstance.ephemeral() as instance:
        context = build_sensor_context(instance=instance)
        request = _run_request_for(context, "g000001")
        assert request is not None and request.run_key == "g000001:first"
        # A UI backfill materializes the same assets under Dagster's implicit asset job.
        _add_run(instance, "__ASSET_JOB", "g000001", DagsterRunStatus.STARTED, "a" * 36)
        assert _run_request_for(context, "g000001") is None
        _add_run(instance, "__ASSET_JOB", "g000002", DagsterRunStatus.FAILURE, "b" * 36)
        rerun = _run_request_for(context, "g000002")
        assert rerun is not None and rerun.run_key == f"g000002:after:{'b' * 36}"
