"""Dagster resources: the run settings as `pipeline_config`, and one S3 client resource per bucket role."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dagster import ConfigurableResource, EnvVar
from pydantic import Field, create_model

from ocr_pipeline.progress import NullProgress
from ocr_pipeline.settings import PipelineSettings, field_types, fields_of, settings_from_env
from ocr_pipeline.workspace.s3 import S3ClientSettings, role_variables, s3_client
from ocr_pipeline.workspace.storage import Workspace, open_workspace

_DECLARED = {spec.name: spec for spec in fields_of(PipelineSettings)}


def declared_fields(declared: type) -> dict[str, tuple[Any, Any]]:
    """(type, pydantic field) of each field of a settings class that Dagster may set: its default, its help."""
    kinds = field_types(declared)
    fields: dict[str, tuple[Any, Any]] = {}
    for spec in fields_of(declared):
        if not spec.metadata["dagster"]:
            continue
        if spec.default_factory is not dataclasses.MISSING:
            model_field = Field(default_factory=spec.default_factory, description=spec.metadata["help"])
        else:
            model_field = Field(default=spec.default, description=spec.metadata["help"])
        fields[spec.name] = (kinds[spec.name], model_field)
    return fields


def declared_resource(name: str, base: type[ConfigurableResource], declared: type) -> Any:
    """`base` (its methods and docstring) with one config field per declared field, in the declaration's order.

    Derived, not written out: a setting added to the declaration is a field of the resource with no edit here.
    """
    # Dagster's resource class is a pydantic model that its stubs do not show as one.
    return create_model(  # type: ignore[call-overload]
        name,
        __base__=base,
        __module__=base.__module__,
        __qualname__=name,
        __doc__=base.__doc__,
        **declared_fields(declared),
    )


class _PipelineConfig(ConfigurableResource):
    """Where inputs come from, where outputs go, and how pages are read (the run settings).

    One field per PipelineSettings field that Dagster may set, with the same name, type, default and description
    (declared_fields).
    """

    def settings(self) -> PipelineSettings:
        """The validated plain settings the stages take."""
        values = {name: getattr(self, name) for name in type(self).model_fields}
        return PipelineSettings(**{**values, "pdfs": list(values.get("pdfs") or [])}).validate()

    @classmethod
    def from_settings(cls, settings: PipelineSettings) -> _PipelineConfig:
        """The resource for settings built elsewhere (the CLI)."""
        names = set(cls.model_fields)
        return cls(**{k: v for k, v in settings.to_dict(redact=False).items() if k in names})


class _S3ClientResource(ConfigurableResource):
    """An S3 client for one bucket role, built only when a step touches an s3:// URI.

    Its fields are S3ClientSettings' (the OCR_PIPELINE_<ROLE>_* variables), under dagster-aws S3Resource's names.
    Not dagster-aws's resource itself: importing dagster-aws adds 0.7-0.9 s to every process that loads the code
    location (the CLI's first request included), and its S3Resource hands a step that names it through
    `required_resource_keys` a boto3 client built at step start, local workspaces included (docs/operations.md, "S3").
    """

    def get_client(self) -> Any:
        """A boto3 S3 client with adaptive retries and bounded timeouts."""
        return s3_client({name: getattr(self, name) for name in type(self).model_fields})

    def client_for(self, *uris: str) -> Any:
        """A client when any URI is on S3; None when all are local paths, which need none."""
        return self.get_client() if any(u.startswith("s3://") for u in uris) else None

    def open_workspace(self, uri: str) -> Workspace:
        """The workspace at `uri` (a folder, or s3:// read with this resource's client)."""
        return open_workspace(uri, self.client_for(uri))


if TYPE_CHECKING:  # the fields are made at run time; a type checker sees the methods (stages read settings())
    PipelineConfig = _PipelineConfig
    S3ClientResource = _S3ClientResource
else:
    PipelineConfig = declared_resource("PipelineConfig", _PipelineConfig, PipelineSettings)
    S3ClientResource = declared_resource("S3ClientResource", _S3ClientResource, S3ClientSettings)


def config_from_env(environ: Mapping[str, str] | None = None) -> PipelineConfig:
    """`pipeline_config` from OCR_PIPELINE_* variables; secrets stay EnvVars, so the UI never shows their value."""
    settings = settings_from_env(environ)
    fields: dict[str, Any] = {}
    for name in PipelineConfig.model_fields:
        value, meta = getattr(settings, name), _DECLARED[name].metadata
        fields[name] = (EnvVar(meta["env"]) if value else None) if meta["secret"] else value
    return PipelineConfig(**fields)


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
