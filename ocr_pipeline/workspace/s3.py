"""S3 behind the Workspace interface, and the S3 client settings each bucket role declares (no Dagster here)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ocr_pipeline.settings import fields_of, option, read_env, variable_of
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


@dataclass
class S3ClientSettings:
    """One bucket role's S3 client: `OCR_PIPELINE_<ROLE>_<FIELD>`, `<ROLE>` being WORKSPACE or INPUT.

    The field names are dagster-aws S3Resource's (and the `workspace_s3`/`input_s3` resources'). Unset fields
    fall back to boto3's own chain (AWS_ACCESS_KEY_ID, AWS_PROFILE, AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3, ...):
    olmOCR's separate workspace and PDF credentials are the role variables.
    """

    aws_access_key_id: str | None = option(None, "access key (else boto3's chain)", env="<ROLE>_AWS_ACCESS_KEY_ID")
    aws_secret_access_key: str | None = option(
        None, "secret key (else boto3's chain)", env="<ROLE>_AWS_SECRET_ACCESS_KEY", secret=True
    )
    aws_session_token: str | None = option(
        None, "session token, for temporary credentials", env="<ROLE>_AWS_SESSION_TOKEN", secret=True
    )
    endpoint_url: str | None = option(None, "S3-compatible endpoint (MinIO, SeaweedFS, R2)", env="<ROLE>_ENDPOINT_URL")
    region_name: str | None = option(None, "region (else boto3's chain)", env="<ROLE>_REGION")
    profile_name: str | None = option(None, "profile in ~/.aws/config", env="<ROLE>_PROFILE")


CLIENT_RETRIES = 10


def _check_role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}")
    return role


def role_variables(role: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Client field -> the name of the variable that sets it for `role`, for the variables that are set."""
    env = os.environ if environ is None else environ
    named = {spec.name: variable_of(spec, _check_role(role)) for spec in fields_of(S3ClientSettings)}
    return {name: var for name, var in named.items() if var and env.get(var)}


def client_from_env(role: str, environ: Mapping[str, str] | None = None) -> Any:
    """A boto3 S3 client for the workspace or the input bucket, from its role variables.

    Only entry points call this (the CLI's `pending`/`view`, the OCR worker process): everything below them
    is handed its client (Dagster's `workspace_s3`/`input_s3` resources, or the entry point's).
    """
    return s3_client(asdict(read_env(S3ClientSettings, environ, role=_check_role(role))))


def env_client_for(role: str, *uris: str) -> Any:
    """An entry point's client for `role` when any URI is on S3; None when all are local (they need none)."""
    return client_from_env(role) if any(u.startswith("s3://") for u in uris) else None


def s3_client(fields: Mapping[str, str | None]) -> Any:
    """A boto3 S3 client from S3ClientSettings' fields; unset ones fall back to boto3's chain."""
    # Imported here to save start-up time: boto3 takes ~0.3 s to import and local runs never need it.
    import boto3
    from botocore.config import Config

    values = {name: value for name, value in fields.items() if value}
    unknown = set(values) - {spec.name for spec in fields_of(S3ClientSettings)}
    if unknown:
        raise ValueError(f"unknown S3 client fields: {sorted(unknown)}")
    endpoint = values.pop("endpoint_url", None)
    session = boto3.session.Session(**values)
    # Adaptive retries back off on 503 SlowDown, throttling and dropped connections.
    config = Config(retries={"max_attempts": CLIENT_RETRIES, "mode": "adaptive"}, connect_timeout=10, read_timeout=120)
    return session.client("s3", endpoint_url=endpoint, config=config)


class MissingS3Client(ValueError):
    """An s3:// URI reached a function without the client it needs (nothing here builds one from the environment)."""


def require_client(uri: str, client: Any, role: str) -> Any:
    """The client for an s3:// URI; MissingS3Client when it is None (the caller must pass its resource's)."""
    if client is None:
        raise MissingS3Client(
            f"{uri} is on S3 but no {role} S3 client was passed: pass the `{role}_s3` resource's client "
            f"(entry points: workspace.s3.env_client_for({role!r}, uri))"
        )
    return client


def is_missing(exc: BaseException) -> bool:
    """Whether a botocore error means the object or bucket does not exist."""
    response = getattr(exc, "response", None) or {}
    code = str(response.get("Error", {}).get("Code", ""))
    return code in {"NoSuchKey", "404", "NotFound", "NoSuchBucket"}


def is_unavailable(exc: BaseException) -> bool:
    """Whether a botocore error means the server could not be reached or failed (5xx) after the client's retries.

    An outage says nothing about the object: a caller that would turn an error into a verdict (a failed data test,
    a rejected input) must let this one fail its step instead, so that the run is retried once S3 is back.
    """
    # Imported here to keep start-up light: botocore loads only where S3 is used, once something went wrong.
    from botocore.exceptions import ConnectionError as BotoConnectionError
    from botocore.exceptions import HTTPClientError

    if isinstance(exc, BotoConnectionError | HTTPClientError):
        return True
    response = getattr(exc, "response", None) or {}
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return isinstance(status, int) and status >= 500


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
