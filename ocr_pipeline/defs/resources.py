"""Dagster resources: the run settings as `pipeline_config`, and one S3 client resource per bucket role."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from dagster import ConfigurableResource, EnvVar
from pydantic import Field

from ocr_pipeline.progress import NullProgress
from ocr_pipeline.settings import PipelineSettings, fields_of, settings_from_env
from ocr_pipeline.workspace.s3 import S3ClientSettings, role_variables, s3_client
from ocr_pipeline.workspace.storage import Workspace, open_workspace

_DECLARED = {spec.name: spec for spec in fields_of(PipelineSettings)}
_S3_DECLARED = {spec.name: spec for spec in fields_of(S3ClientSettings)}


def _declared(name: str, declared: Mapping[str, dataclasses.Field[Any]] = _DECLARED) -> Any:
    """The pydantic field of a declared settings field: its default, and its help as description."""
    spec = declared[name]
    if spec.default_factory is not dataclasses.MISSING:
        return Field(default_factory=spec.default_factory, description=spec.metadata["help"])
    return Field(default=spec.default, description=spec.metadata["help"])


class PipelineConfig(ConfigurableResource):
    """Where inputs come from, where outputs go, and how pages are read (the run settings).

    One field per PipelineSettings field that Dagster may set, with the same name and type; defaults and
    descriptions come from that declaration (tests/unit/settings/test_settings.py keeps the two in step).
    """

    workspace: str = _declared("workspace")
    pdfs: list[str] = _declared("pdfs")
    server: str | None = _declared("server")
    model: str = _declared("model")
    api_key: str | None = _declared("api_key")
    markdown: bool = _declared("markdown")
    apply_filter: bool = _declared("apply_filter")
    pages_per_group: int = _declared("pages_per_group")
    max_concurrent_requests: int = _declared("max_concurrent_requests")
    max_page_retries: int = _declared("max_page_retries")
    max_page_error_rate: float = _declared("max_page_error_rate")
    target_longest_image_dim: int = _declared("target_longest_image_dim")
    guided_decoding: bool = _declared("guided_decoding")
    server_ready_timeout: float = _declared("server_ready_timeout")
    hourly_cost_usd: float = _declared("hourly_cost_usd")
    max_archive_bytes: int = _declared("max_archive_bytes")
    follow_external_links: bool = _declared("follow_external_links")
    pdf_memory_mb: int = _declared("pdf_memory_mb")
    ocr_launcher: str = _declared("ocr_launcher")

    def settings(self) -> PipelineSettings:
        """The validated plain settings the stages take."""
        values = {name: getattr(self, name) for name in type(self).model_fields}
        return PipelineSettings(**{**values, "pdfs": list(values.get("pdfs") or [])}).validate()

    @classmethod
    def from_settings(cls, settings: PipelineSettings) -> PipelineConfig:
        """The resource for settings built elsewhere (the CLI)."""
        names = set(cls.model_fields)
        return cls(**{k: v for k, v in settings.to_dict(redact=False).items() if k in names})


def config_from_env(environ: Mapping[str, str] | None = None) -> PipelineConfig:
    """`pipeline_config` from OCR_PIPELINE_* variables; secrets stay EnvVars, so the UI never shows their value."""
    settings = settings_from_env(environ)
    fields: dict[str, Any] = {}
    for name in PipelineConfig.model_fields:
        value, meta = getattr(settings, name), _DECLARED[name].metadata
        fields[name] = (EnvVar(meta["env"]) if value else None) if meta["secret"] else value
    return PipelineConfig(**fields)


class S3ClientResource(ConfigurableResource):
    """An S3 client for one bucket role, built only when a step touches an s3:// URI.

    Its fields are S3ClientSettings' (the OCR_PIPELINE_<ROLE>_* variables), under dagster-aws S3Resource's names.
    Not dagster-aws's resource itself: importing dagster-aws adds 0.7-0.9 s to every process that loads the code
    location (the CLI's first request included), and its S3Resource hands a step that names it through
    `required_resource_keys` a boto3 client built at step start, local workspaces included (docs/operations.md, "S3").
    """

    aws_access_key_id: str | None = _declared("aws_access_key_id", _S3_DECLARED)
    aws_secret_access_key: str | None = _declared("aws_secret_access_key", _S3_DECLARED)
    aws_session_token: str | None = _declared("aws_session_token", _S3_DECLARED)
    endpoint_url: str | None = _declared("endpoint_url", _S3_DECLARED)
    region_name: str | None = _declared("region_name", _S3_DECLARED)
    profile_name: str | None = _declared("profile_name", _S3_DECLARED)

    def get_client(self) -> Any:
        """A boto3 S3 client with adaptive retries and bounded timeouts."""
        return s3_client({name: getattr(self, name) for name in type(self).model_fields})

    def client_for(self, *uris: str) -> Any:
        """A client when any URI is on S3; None when all are local paths, which need none."""
        return self.get_client() if any(u.startswith("s3://") for u in uris) else None

    def open_workspace(self, uri: str) -> Workspace:
        """The workspace at `uri` (a folder, or s3:// read with this resource's client)."""
        return open_workspace(uri, self.client_for(uri))


def s3_resource_from_env(role: str, environ: Mapping[str, str] | None = None) -> S3ClientResource:
    """The S3 client resource for `workspace` or `input`; values stay EnvVars so the UI never shows a secret."""
    fields = {name: EnvVar(var) for name, var in role_variables(role, environ).items()}
    return S3ClientResource(**fields)


def pipeline_resources(settings: PipelineSettings | None = None, progress: Any = None) -> dict[str, Any]:
    """Every resource the assets need: run settings given (the CLI) or from the environment (a code location)."""
    return {
        "pipeline_config": config_from_env() if settings is None else PipelineConfig.from_settings(settings),
        "progress": progress if progress is not None else NullProgress(),
        "workspace_s3": s3_resource_from_env("workspace"),
        "input_s3": s3_resource_from_env("input"),
    }
