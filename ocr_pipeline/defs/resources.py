"""Dagster resources: the run settings as `pipeline_config`, and one S3 client resource per bucket role."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from typing import Any

from dagster import ConfigurableResource, EnvVar
from pydantic import Field

from ocr_pipeline.progress import NullProgress
from ocr_pipeline.settings import PipelineSettings, field_types, fields_of, settings_from_env
from ocr_pipeline.workspace.s3 import role_variables, s3_client


class _PipelineConfigBase(ConfigurableResource):
    def settings(self) -> PipelineSettings:
        """The validated plain settings the stages take."""
        values = {name: getattr(self, name) for name in type(self).model_fields}
        return PipelineSettings(**{**values, "pdfs": list(values.get("pdfs") or [])}).validate()

    @classmethod
    def from_settings(cls, settings: PipelineSettings) -> Any:
        """The resource for settings built elsewhere (the CLI)."""
        names = set(cls.model_fields)
        return cls(**{k: v for k, v in settings.to_dict(redact=False).items() if k in names})


def _config_namespace(namespace: dict[str, Any]) -> None:
    # Each PipelineSettings field that Dagster may set becomes a config field, with its help as description.
    types_ = field_types(PipelineSettings)
    annotations: dict[str, Any] = {}
    for spec in fields_of(PipelineSettings):
        if not spec.metadata["dagster"]:
            continue
        annotations[spec.name] = types_[spec.name]
        if spec.default_factory is not dataclasses.MISSING:
            namespace[spec.name] = Field(default_factory=spec.default_factory, description=spec.metadata["help"])
        else:
            namespace[spec.name] = Field(default=spec.default, description=spec.metadata["help"])
    namespace["__annotations__"] = annotations
    namespace["__module__"] = __name__
    namespace["__doc__"] = "Where inputs come from, where outputs go, and how pages are read (the run settings)."


PipelineConfig = types.new_class("PipelineConfig", (_PipelineConfigBase,), exec_body=_config_namespace)


def config_from_env(environ: Mapping[str, str] | None = None) -> Any:
    """`pipeline_config` from OCR_PIPELINE_* variables; secrets stay EnvVars, so the UI never shows their value."""
    settings = settings_from_env(environ)
    fields: dict[str, Any] = {}
    for spec in fields_of(PipelineSettings):
        if not spec.metadata["dagster"]:
            continue
        value = getattr(settings, spec.name)
        if spec.metadata["secret"]:
            value = EnvVar(spec.metadata["env"]) if value else None
        fields[spec.name] = value
    return PipelineConfig(**fields)


class S3ClientResource(ConfigurableResource):
    """An S3 client for one bucket role, built only when a step touches an s3:// URI.

    The fields are dagster-aws S3Resource's names for the same settings. dagster-aws's resource builds a boto3
    client for every step that declares it (0.25 s each, and 0.8 s to import dagster-aws), even when the
    workspace and inputs are local folders: that delayed a local run's first VLM request by seconds.
    """

    aws_access_key_id: str | None = Field(default=None, description="access key (else boto3's chain)")
    aws_secret_access_key: str | None = Field(default=None, description="secret key (else boto3's chain)")
    aws_session_token: str | None = Field(default=None, description="session token, for temporary credentials")
    endpoint_url: str | None = Field(default=None, description="S3-compatible endpoint (MinIO, SeaweedFS, R2)")
    region_name: str | None = Field(default=None, description="region (else boto3's chain)")
    profile_name: str | None = Field(default=None, description="profile in ~/.aws/config")

    def get_client(self) -> Any:
        """A boto3 S3 client with adaptive retries and bounded timeouts."""
        return s3_client({name: getattr(self, name) for name in type(self).model_fields})


def s3_resource_from_env(role: str, environ: Mapping[str, str] | None = None) -> S3ClientResource:
    """The S3 client resource for `workspace` or `input`; values stay EnvVars so the UI never shows a secret."""
    fields = {name: EnvVar(var) for name, var in role_variables(role, environ).items()}
    return S3ClientResource(**fields)


def client_if_s3(resource: S3ClientResource, *uris: str) -> Any:
    """A boto3 client when any URI is on S3; None for local paths, which need no client."""
    return resource.get_client() if any(u.startswith("s3://") for u in uris) else None


def pipeline_resources(settings: PipelineSettings | None = None, progress: Any = None) -> dict[str, Any]:
    """Every resource the assets need: run settings given (the CLI) or from the environment (a code location)."""
    return {
        "pipeline_config": config_from_env() if settings is None else PipelineConfig.from_settings(settings),
        "progress": progress if progress is not None else NullProgress(),
        "workspace_s3": s3_resource_from_env("workspace"),
        "input_s3": s3_resource_from_env("input"),
    }
