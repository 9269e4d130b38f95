"""S3 behind the Workspace interface, and boto3 clients built from the environment (no Dagster here)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from ocr_pipeline.workspace.locks import DEFAULT_LOCK_TIMEOUT_S, is_precondition_failure, s3_lock
from ocr_pipeline.workspace.safepaths import check_key

# Single-request puts up to this size; larger objects go through a multipart upload, which S3 only
# publishes once it is completed, so readers never see a part.
MULTIPART_THRESHOLD = 64 * 1024 * 1024
ROLES = ("workspace", "input")


def parse_s3_uri(uri: str) -> tuple[str, str]:
    """(bucket, key-or-prefix) of `s3://bucket/prefix`; raises ValueError for anything else."""
    if not uri.startswith("s3://"):
        raise ValueError(f"not an s3:// URI: {uri!r}")
    bucket, _, key = uri[5:].partition("/")
    if not bucket:
        raise ValueError(f"no bucket in {uri!r}")
    return bucket, key


# S3 client field <- OCR_PIPELINE_<ROLE>_<suffix>: the one mapping that boto3 clients here and the Dagster
# S3 client resources both use. Unset fields fall back to boto3's own chain (AWS_ACCESS_KEY_ID, AWS_PROFILE,
# AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3, ...).
ROLE_ENV_SUFFIXES = {
    "aws_access_key_id": "AWS_ACCESS_KEY_ID",
    "aws_secret_access_key": "AWS_SECRET_ACCESS_KEY",
    "aws_session_token": "AWS_SESSION_TOKEN",
    "endpoint_url": "ENDPOINT_URL",
    "region_name": "REGION",
    "profile_name": "PROFILE",
}
CLIENT_RETRIES = 10


def role_variables(role: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Client field -> the name of the variable that sets it for `role`, for the variables that are set."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}")
    env = os.environ if environ is None else environ
    prefix = f"OCR_PIPELINE_{role.upper()}_"
    return {name: prefix + suffix for name, suffix in ROLE_ENV_SUFFIXES.items() if env.get(prefix + suffix)}


def client_from_env(role: str = "workspace", profile: str | None = None, environ: dict[str, str] | None = None) -> Any:
    """A boto3 S3 client for the workspace or the input bucket.

    `OCR_PIPELINE_<ROLE>_AWS_ACCESS_KEY_ID` / `_SECRET_ACCESS_KEY` / `_SESSION_TOKEN` / `_ENDPOINT_URL` /
    `_REGION` / `_PROFILE` give a role its own credentials (olmOCR's separate workspace and PDF credentials);
    otherwise boto3's standard chain applies, `AWS_ENDPOINT_URL` and `AWS_ENDPOINT_URL_S3` included.
    """
    env = os.environ if environ is None else environ
    values: dict[str, str | None] = {name: env[var] for name, var in role_variables(role, env).items()}
    if profile:
        values["profile_name"] = profile
    return s3_client(values)


def s3_client(fields: Mapping[str, str | None]) -> Any:
    """A boto3 S3 client from client fields (ROLE_ENV_SUFFIXES' names); unset ones fall back to boto3's chain."""
    # Imported here to save start-up time: boto3 takes ~0.3 s to import and local runs never need it.
    import boto3
    from botocore.config import Config

    values = {name: value for name, value in fields.items() if value}
    unknown = set(values) - set(ROLE_ENV_SUFFIXES)
    if unknown:
        raise ValueError(f"unknown S3 client fields: {sorted(unknown)}")
    endpoint = values.pop("endpoint_url", None)
    session = boto3.session.Session(**values)
    # Adaptive retries back off on 503 SlowDown, throttling and dropped connections.
    config = Config(retries={"max_attempts": CLIENT_RETRIES, "mode": "adaptive"}, connect_timeout=10, read_timeout=120)
    return session.client("s3", endpoint_url=endpoint, config=config)


def is_missing(exc: BaseException) -> bool:
    """Whether a botocore error means the object or bucket does not exist."""
    response = getattr(exc, "response", None) or {}
    code = str(response.get("Error", {}).get("Code", ""))
    return code in {"NoSuchKey", "404", "NotFound", "NoSuchBucket"}


class S3Workspace:
    """A workspace under `s3://bucket/prefix`: the same keys as on disk, one object each."""

    def __init__(self, uri: str, client: Any) -> None:
        self.bucket, prefix = parse_s3_uri(uri.rstrip("/"))
        self.prefix = f"{prefix.strip('/')}/" if prefix.strip("/") else ""
        self.uri = f"s3://{self.bucket}/{self.prefix}".rstrip("/")
        self.client = client

    def _key(self, key: str) -> str:
        return self.prefix + check_key(key)

    def write_bytes(self, key: str, data: bytes) -> None:
        """One put_object: S3 makes the object visible whole or not at all."""
        self.client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data)

    def create_exclusive(self, key: str, data: bytes) -> bool:
        """A put with `If-None-Match: *`: the server refuses it (412) when the key exists."""
        try:
            self.client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data, IfNoneMatch="*")
            return True
        except Exception as exc:
            if is_precondition_failure(exc):
                return False
            raise

    def lock(self, name: str, timeout_s: float = DEFAULT_LOCK_TIMEOUT_S) -> AbstractContextManager[Any]:
        """A lease object `locks/<name>.json`, created and taken over with conditional puts."""
        return s3_lock(self.client, self.bucket, self._key(f"locks/{name}.json"), timeout_s)

    def write_file(self, key: str, path: Path) -> None:
        """Upload a local file, as multipart beyond MULTIPART_THRESHOLD (still published atomically)."""
        # Imported here to save start-up time (boto3).
        from boto3.s3.transfer import TransferConfig

        config = TransferConfig(multipart_threshold=MULTIPART_THRESHOLD, multipart_chunksize=MULTIPART_THRESHOLD)
        self.client.upload_file(str(path), self.bucket, self._key(key), Config=config)

    def read_bytes(self, key: str) -> bytes:
        """Read a whole object; FileNotFoundError when missing."""
        try:
            return self.client.get_object(Bucket=self.bucket, Key=self._key(key))["Body"].read()
        except Exception as exc:
            if is_missing(exc):
                raise FileNotFoundError(f"{self.uri}/{key}") from exc
            raise

    def download(self, key: str, path: Path) -> None:
        """Stream an object to a local file; FileNotFoundError when missing."""
        try:
            self.client.download_file(self.bucket, self._key(key), str(path))
        except Exception as exc:
            if is_missing(exc):
                raise FileNotFoundError(f"{self.uri}/{key}") from exc
            raise

    def exists(self, key: str) -> bool:
        """A HEAD request."""
        try:
            self.client.head_object(Bucket=self.bucket, Key=self._key(key))
            return True
        except Exception as exc:
            if is_missing(exc):
                return False
            raise

    def list(self, prefix: str) -> Iterator[str]:
        """Keys under the prefix, paginated (S3 returns them sorted)."""
        paginator = self.client.get_paginator("list_objects_v2")
        for page in paginator.paginate(Bucket=self.bucket, Prefix=self.prefix + prefix):
            for item in page.get("Contents", []):
                yield item["Key"][len(self.prefix) :]

    def delete(self, key: str) -> None:
        """Delete the object (absent objects are fine)."""
        self.client.delete_object(Bucket=self.bucket, Key=self._key(key))

    def local_path(self, key: str) -> Path | None:
        """None: objects have no local path."""
        return None
