"""S3 failures that end a whole run, against a real S3 server (SeaweedFS): one plain line and exit code 4."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.builders import pdfgen
from tests.support.s3_server import ADMIN, SeaweedS3


@pytest.fixture(scope="module")
def s3() -> Iterator[SeaweedS3]:
    with SeaweedS3() as server:
        client = server.client()
        with contextlib.suppress(client.exceptions.BucketAlreadyOwnedByYou):
            client.create_bucket(Bucket="ocr-ws")
        yield server


def _run(s3: SeaweedS3, workspace: str, pdfs: str, **env: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "ocr_pipeline.cli", "run", workspace, "--pdfs", pdfs, "--quiet"]
    full_env = {**os.environ, **s3.env(), **env}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=full_env)


def _error_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_bad_credentials_are_one_line(s3: SeaweedS3, tmp_path: Path) -> None:
    pdf = pdfgen.write(tmp_path / "a.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:2]]))
    proc = _run(s3, "s3://ocr-ws/run", str(pdf), AWS_SECRET_ACCESS_KEY="wrong-secret")
    assert proc.returncode == 4
    assert _error_line(proc).startswith("ocr-pipeline: error: S3 refused the credentials (")


def test_a_missing_bucket_is_one_line(s3: SeaweedS3, tmp_path: Path) -> None:
    pdf = pdfgen.write(tmp_path / "a.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:2]]))
    proc = _run(s3, "s3://no-such-bucket/run", str(pdf))
    assert proc.returncode == 4
    assert _error_line(proc) == "ocr-pipeline: error: S3 bucket no-such-bucket does not exist (s3://no-such-bucket/run)"


def test_a_missing_input_bucket_is_one_line(s3: SeaweedS3) -> None:
    proc = _run(s3, "s3://ocr-ws/run-missing-input", "s3://no-such-input/corpus/")
    assert proc.returncode == 4
    assert _error_line(proc) == "ocr-pipeline: error: S3 bucket no-such-input does not exist (NoSuchBucket)"


def test_a_data_test_on_an_unreachable_workspace_fails_its_step_instead_of_failing_the_test() -> None:
    # An outage says nothing about the data: a blocking test that "failed" on it held the group back with its run
    # green (the OCR op's gate skipped vlm_ocr_outputs), and nothing retried it. Raised, the run fails and is retried.
    import boto3
    from botocore.config import Config

    from ocr_pipeline.checks.loaders import PartitionData
    from ocr_pipeline.checks.registry import WorkspaceUnavailable, evaluate
    from ocr_pipeline.checks.spec import load_file
    from ocr_pipeline.workspace.s3 import S3Workspace
    from tests.support.dagster_stack import REPO

    [test] = [t for t in load_file(REPO / "dbt_like_checks" / "page_images.yml").tests["page_images"] if t.blocking]
    with SeaweedS3() as server:
        server.client().create_bucket(Bucket="ocr-ws")
        # One attempt: the product's client retries for a minute first (workspace/s3.py), then fails the same way.
        client = boto3.client("s3", endpoint_url=server.endpoint, aws_access_key_id=ADMIN[0],
                              aws_secret_access_key=ADMIN[1], region_name="us-east-1",
                              config=Config(retries={"max_attempts": 1}, connect_timeout=2))  # fmt: skip
        data = PartitionData(S3Workspace("s3://ocr-ws/outage", client), "g000001")
        outcome = evaluate(test, data)  # up, the group not rendered yet: a failed test that says why
        assert not outcome.passed and "does not exist in s3://ocr-ws/outage" in outcome.summary
        server.pause()
        with pytest.raises(WorkspaceUnavailable, match=r"^s3://ocr-ws/outage \(g000001\) could not be read for the "
                           r"test pages_match_page_count: Could not connect"):  # fmt: skip
            evaluate(test, PartitionData(data.workspace, "g000001"))
