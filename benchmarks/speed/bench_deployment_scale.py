"""Inputs of the capacity plan that one machine can measure: sensor tick time at N groups, S3 requests per page.

    .venv/bin/python -m benchmarks.speed.bench_deployment_scale [--groups 1000] [--pages 1 4 120]

Both against SeaweedFS on 127.0.0.1 (`tests/support/s3_server.py`), with the project's real code:
- **sensor**: N one-page PDFs in an input bucket, `pages_per_group` 1, so N work groups. Tick 1 lists them
  and asks for an inventory run; that run (timed apart, in-process) scans them (S3 inputs are listed, not
  read: five are sampled), forms and registers the groups; tick 2 is the steady state of a large backfill,
  every group with a run in progress: it lists, finds nothing new, and checks `OCR_PIPELINE_SENSOR_MAX_GROUPS`
  groups (the done listing, one run query) in a SQLite instance.
- **S3 requests**: one `ocr-pipeline run` (in-process, CPU engine) over a mixed corpus, every boto3 call counted
  by operation, divided by the pages read.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import botocore.client
from dagster import DagsterInstance, DagsterRunStatus, build_sensor_context
from dagster._core.test_utils import create_run_for_test

from ocr_pipeline.defs.definitions import build_definitions
from ocr_pipeline.defs.materialize import run_resources
from ocr_pipeline.defs.sensors import work_group_sensor
from ocr_pipeline.local_run import run_local
from ocr_pipeline.settings import PipelineSettings
from tests.support.builders import corpora
from tests.support.s3_server import SeaweedS3


@contextmanager
def counted_s3_calls() -> Iterator[Counter[str]]:
    """Count every boto3 API call made in this process, by operation name."""
    counts: Counter[str] = Counter()
    original = botocore.client.BaseClient._make_api_call

    def counting(self: Any, operation_name: str, api_params: Any) -> Any:
        counts[operation_name] += 1
        return original(self, operation_name, api_params)

    botocore.client.BaseClient._make_api_call = counting  # type: ignore[method-assign]  # counted, restored below
    try:
        yield counts
    finally:
        botocore.client.BaseClient._make_api_call = original  # type: ignore[method-assign]  # the original


def sensor_ticks(s3: SeaweedS3, groups: int) -> dict[str, float]:
    """Seconds of the first tick (N new inputs), its inventory run, and a steady-state tick (N groups, all running)."""
    client = s3.client()
    client.create_bucket(Bucket="scale-in")
    client.create_bucket(Bucket="scale-ws")
    one_page = corpora.numbered_pdf("p", 1)
    for i in range(groups):
        client.put_object(Bucket="scale-in", Key=f"c/{i:06d}.pdf", Body=one_page)
    settings = PipelineSettings(workspace="s3://scale-ws/w", pdfs=["s3://scale-in/c/"], pages_per_group=1)
    resources = run_resources(settings)
    with tempfile.TemporaryDirectory() as home, DagsterInstance.local_temp(home) as instance:
        started = time.monotonic()
        with build_sensor_context(instance=instance, resources=resources) as context:
            first = work_group_sensor(context)
        first_s = time.monotonic() - started
        [scan] = first.run_requests
        job = build_definitions(resources, with_automation=False).resolve_job_def("inventory_job")
        started = time.monotonic()
        assert job.execute_in_process(run_config=scan.run_config, instance=instance, tags=scan.tags).success
        inventory_s = time.monotonic() - started
        keys = list(instance.get_dynamic_partitions("work_groups"))
        for key in keys:  # every group has a run in flight, as in the middle of a backfill
            create_run_for_test(instance, job_name="ocr_job", tags={"dagster/partition": key},
                                status=DagsterRunStatus.STARTED)  # fmt: skip
        started = time.monotonic()
        with build_sensor_context(instance=instance, resources=resources, cursor=first.cursor) as context:
            steady = work_group_sensor(context)
        steady_s = time.monotonic() - started
    assert len(keys) == groups and not steady.run_requests, (len(keys), len(steady.run_requests))
    return {"first_tick_s": first_s, "inventory_run_s": inventory_s, "steady_tick_s": steady_s}


def s3_requests(s3: SeaweedS3, page_counts: list[int]) -> tuple[int, Counter[str]]:
    """(pages, boto3 calls by operation) of one in-process run over a mixed corpus on S3."""
    client = s3.client()
    client.create_bucket(Bucket="req-in")
    client.create_bucket(Bucket="req-ws")
    corpus = corpora.mixed_pdfs(page_counts)
    corpora.upload(client, "req-in", "c/", corpus)
    settings = PipelineSettings(workspace="s3://req-ws/w", pdfs=["s3://req-in/c/"], pages_per_group=500)
    with counted_s3_calls() as counts:
        summary = run_local(settings, show_progress=False)
    assert summary.ok and summary.pages == corpora.total_pages(corpus), summary
    return summary.pages, counts


def main() -> None:
    """Print both measurements as markdown."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--pages", type=int, nargs="+", default=list(corpora.DEFAULT_PAGE_COUNTS))
    args = parser.parse_args()
    with SeaweedS3() as s3:
        # The resources and run_local read S3 credentials from the environment, as a deployment does.
        os.environ.update(s3.env())
        ticks = sensor_ticks(s3, args.groups)
        pages, counts = s3_requests(s3, args.pages)
    print(f"| sensor, {args.groups} groups | seconds |")
    print("|---|---:|")
    print(f"| first tick: {args.groups} new inputs listed, an inventory run requested | {ticks['first_tick_s']:.1f} |")
    print(f"| its inventory run: scanned, {args.groups} groups formed, registered | {ticks['inventory_run_s']:.1f} |")
    print(f"| steady tick: nothing new, groups checked round-robin, all running | {ticks['steady_tick_s']:.1f} |")
    total = sum(counts.values())
    print(f"\n{pages} pages, {total} S3 requests: {total / pages:.2f} per page")
    print("| operation | requests | per page |")
    print("|---|---:|---:|")
    for op, n in counts.most_common():
        print(f"| {op} | {n} | {n / pages:.2f} |")


if __name__ == "__main__":
    main()
