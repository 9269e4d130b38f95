"""Every step that touches S3 uses the resources it is handed: a run whose credentials live only in
`workspace_s3`/`input_s3` (none in the environment) inventories, reads, writes and checks on a real S3 server."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest
from dagster import DagsterInstance

from ocr_pipeline.defs.definitions import build_definitions
from ocr_pipeline.defs.partitions import work_groups
from ocr_pipeline.defs.resources import PipelineConfig, S3ClientResource
from ocr_pipeline.progress import NullProgress
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.s3 import S3Workspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl
from tests.support.builders import pdfgen
from tests.support.s3_server import ADMIN, READER, SeaweedS3


@pytest.fixture(scope="module")
def s3() -> Iterator[SeaweedS3]:
    with SeaweedS3() as server:
        yield server


@pytest.fixture
def no_s3_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing a boto3 default chain could find: an S3 client built from the environment fails at once."""
    for name in list(os.environ):
        if name.startswith(("AWS_", "OCR_PIPELINE_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)


def _resource(s3: SeaweedS3, identity: tuple[str, str]) -> S3ClientResource:
    key, secret = identity
    return S3ClientResource(
        endpoint_url=s3.endpoint, aws_access_key_id=key, aws_secret_access_key=secret, region_name="us-east-1"
    )


@pytest.mark.usefixtures("no_s3_environment")
def test_credentials_only_in_the_resources_reach_every_step_and_check(s3: SeaweedS3) -> None:
    admin = s3.client()
    for bucket in ("res-in", "res-ws"):
        with contextlib.suppress(admin.exceptions.BucketAlreadyOwnedByYou):
            admin.create_bucket(Bucket=bucket)
    admin.put_object(Bucket="res-in", Key="docs/a.pdf", Body=pdfgen.text_pdf([pdfgen.SENTENCES[:3]]))
    settings = PipelineSettings(workspace="s3://res-ws/w", pdfs=["s3://res-in/docs/"])
    resources = {
        "pipeline_config": PipelineConfig.from_settings(settings),
        "progress": NullProgress(),
        "workspace_s3": _resource(s3, ADMIN),
        "input_s3": _resource(s3, READER),  # the inputs with their own, read-only identity
    }
    defs = build_definitions(resources, with_automation=False)
    with DagsterInstance.ephemeral() as instance:
        defs.resolve_job_def("inventory_job").execute_in_process(instance=instance)
        [group] = instance.get_dynamic_partitions(work_groups.name)
        result = defs.resolve_job_def("ocr_job").execute_in_process(instance=instance, partition_key=group)
    assert result.success
    checks = result.get_asset_check_evaluations()
    assert checks and all(check.passed for check in checks), [c.check_name for c in checks if not c.passed]
    workspace = S3Workspace("s3://res-ws/w", admin)
    [document] = read_gzip_jsonl(workspace.read_bytes(f"dolma/{group}.jsonl.gz"))
    assert document["metadata"]["Source-File"] == "s3://res-in/docs/a.pdf"
