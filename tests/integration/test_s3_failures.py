"""S3 failures that end a whole run, against a real S3 server (SeaweedFS): one plain line and exit code 4."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import pdfgen
from tests.support.s3_server import SeaweedS3


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
