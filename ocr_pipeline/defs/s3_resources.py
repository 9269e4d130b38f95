"""S3 clients as dagster-aws S3Resources: one for the workspace bucket, one for the input bucket."""

from __future__ import annotations

import os
from typing import Any

from dagster import EnvVar
from dagster_aws.s3 import S3Resource

from ocr_pipeline.s3_storage import ROLES

# S3Resource field ← OCR_PIPELINE_<ROLE>_<suffix>; unset fields fall back to boto3's own chain
# (AWS_ACCESS_KEY_ID, AWS_PROFILE, AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3, ...).
_FIELDS = {
    "aws_access_key_id": "AWS_ACCESS_KEY_ID",
    "aws_secret_access_key": "AWS_SECRET_ACCESS_KEY",
    "aws_session_token": "AWS_SESSION_TOKEN",
    "endpoint_url": "ENDPOINT_URL",
    "region_name": "REGION",
    "profile_name": "PROFILE",
}


def s3_resource_from_env(role: str, environ: dict[str, str] | None = None) -> S3Resource:
    """The S3Resource for `workspace` or `input`; values stay EnvVars so the UI never shows a secret."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}")
    env = os.environ if environ is None else environ
    prefix = f"OCR_PIPELINE_{role.upper()}_"
    fields: dict[str, Any] = {
        name: EnvVar(prefix + suffix) for name, suffix in _FIELDS.items() if env.get(prefix + suffix)
    }
    return S3Resource(max_attempts=10, **fields)


def client_if_s3(resource: S3Resource, *uris: str) -> Any:
    """A boto3 client when any URI is on S3 (building one for local runs would need no credentials, but costs)."""
    return resource.get_client() if any(u.startswith("s3://") for u in uris) else None
