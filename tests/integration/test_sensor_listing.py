"""The sensor on a real S3 server: a tick lists (never reads an input), bounded, resuming through its cursor.

Every boto3 call of a tick is recorded (the calls themselves go to SeaweedFS unchanged), so "listing only"
is checked on the wire: the input bucket sees ListObjectsV2 and nothing else.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import botocore.client
import pytest
from dagster import DagsterInstance, SensorResult, build_sensor_context

from ocr_pipeline.defs.definitions import build_definitions
from ocr_pipeline.defs.materialize import run_resources
from ocr_pipeline.defs.sensors import work_group_sensor
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.inventory_listing import known_sources
from ocr_pipeline.workspace.s3 import S3Workspace
from tests.support.builders import corpora
from tests.support.s3_server import READER, SeaweedS3

SPEC = "s3://listing-in/c/"


@pytest.fixture(scope="module")
def s3() -> Iterator[SeaweedS3]:
    with SeaweedS3() as server:
        for bucket in ("listing-in", "listing-ws"):
            server.client().create_bucket(Bucket=bucket)
        yield server


@contextmanager
def recorded_calls() -> Iterator[list[tuple[str, str]]]:
    """(operation, bucket) of every boto3 call made in this process while the block runs."""
    calls: list[tuple[str, str]] = []
    original = botocore.client.BaseClient._make_api_call

    def recording(self: Any, operation_name: str, api_params: Any) -> Any:
        calls.append((operation_name, str(api_params.get("Bucket", ""))))
        return original(self, operation_name, api_params)

    botocore.client.BaseClient._make_api_call = recording  # type: ignore[method-assign]  # restored below
    try:
        yield calls
    finally:
        botocore.client.BaseClient._make_api_call = original  # type: ignore[method-assign]  # the original


def test_ticks_list_bounded_windows_and_each_inventory_run_scans_its_window(
    s3: SeaweedS3, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in s3.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("OCR_PIPELINE_INPUT_AWS_ACCESS_KEY_ID", READER[0])
    monkeypatch.setenv("OCR_PIPELINE_INPUT_AWS_SECRET_ACCESS_KEY", READER[1])
    monkeypatch.setenv("OCR_PIPELINE_SENSOR_MAX_NEW_INPUTS", "2")
    names = [f"c/a{i}.pdf" for i in range(5)]
    for name in names:
        s3.client().put_object(Bucket="listing-in", Key=name, Body=corpora.numbered_pdf(name, 1))
    settings = PipelineSettings(workspace="s3://listing-ws/w", pdfs=[SPEC], pages_per_group=1)
    resources = run_resources(settings)
    inventory_job = build_definitions(resources, with_automation=False).resolve_job_def("inventory_job")
    ws = S3Workspace(settings.workspace, s3.client())
    instance = DagsterInstance.ephemeral()

    def tick(cursor: str | None) -> SensorResult:
        with build_sensor_context(instance=instance, resources=resources, cursor=cursor) as context:
            return work_group_sensor(context)

    cursor = None
    windows = []
    for known_after in (2, 4, 5):
        started = time.monotonic()
        with recorded_calls() as calls:
            result = tick(cursor)
        print(f"tick: {time.monotonic() - started:.2f}s, {len(calls)} S3 requests")
        assert {op for op, bucket in calls if bucket == "listing-in"} == {"ListObjectsV2"}
        assert not any(op.startswith("Put") for op, _ in calls)  # no group file, no index part
        cursor = result.cursor
        [request] = [r for r in result.run_requests if r.job_name == "inventory_job"]
        config = request.run_config["ops"]["pdf_inventory"]["config"]
        windows.append(config["start_after"])
        run = inventory_job.execute_in_process(run_config=request.run_config, instance=instance, tags=request.tags)
        assert run.success
        assert len(known_sources(ws)) == known_after
    # Each run started where the previous tick's listing stopped (the key of the last input it counted).
    assert windows == [{}, {SPEC: names[1]}, {SPEC: names[3]}]
    assert instance.get_dynamic_partitions("work_groups") == [f"g{i:06d}" for i in range(1, 6)]
    # A full pass done, the listing starts over, finds nothing new, and asks for no inventory run.
    assert [r.job_name for r in tick(cursor).run_requests] == ["ocr_job"] * 5
