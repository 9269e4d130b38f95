"""Dagster resources: the pipeline's settings, read from the environment when `dagster dev` loads them."""

from __future__ import annotations

import os
from pathlib import Path

from dagster import ConfigurableResource, EnvVar

from ocr_pipeline.settings import (
    DEFAULT_MAX_PAGE_ERROR_RATE,
    DEFAULT_MAX_PAGE_RETRIES,
    DEFAULT_PAGES_PER_GROUP,
    DEFAULT_TARGET_LONGEST_IMAGE_DIM,
    PipelineSettings,
)

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "samples"


class PipelineConfig(ConfigurableResource):
    """Where inputs come from, where outputs go, and how pages are read (the CLI flags, as a resource)."""

    workspace: str
    pdfs: list[str] = []
    server: str | None = None
    model: str = "allenai/olmOCR-2-7B-1025-FP8"
    api_key: str | None = None
    markdown: bool = False
    apply_filter: bool = False
    pages_per_group: int = DEFAULT_PAGES_PER_GROUP
    max_concurrent_requests: int = 64
    max_page_retries: int = DEFAULT_MAX_PAGE_RETRIES
    max_page_error_rate: float = DEFAULT_MAX_PAGE_ERROR_RATE
    target_longest_image_dim: int = DEFAULT_TARGET_LONGEST_IMAGE_DIM
    guided_decoding: bool = False
    ocr_launcher: str = "subprocess"  # "k8s": a GPU pod per partition (OCR_PIPELINE_K8S_* configure it)

    def settings(self) -> PipelineSettings:
        """The validated plain settings the stages take (every field here is a PipelineSettings field)."""
        values = {name: getattr(self, name) for name in type(self).model_fields}
        return PipelineSettings(**{**values, "pdfs": list(self.pdfs)}).validate()

    @classmethod
    def from_settings(cls, settings: PipelineSettings) -> PipelineConfig:
        """The resource for settings built elsewhere (the CLI)."""
        fields = settings.to_dict(redact=False)
        fields.pop("workers", None)
        return cls(**fields)


def config_from_env() -> PipelineConfig:
    """Settings for `dagster dev`: OCR_PIPELINE_* variables, else the bundled samples into ./ocr-workspace."""
    env = os.environ
    pdfs = [p for p in env.get("OCR_PIPELINE_PDFS", str(SAMPLES_DIR)).split(",") if p.strip()]
    return PipelineConfig(
        workspace=env.get("OCR_PIPELINE_WORKSPACE", str(Path.cwd() / "ocr-workspace")),
        pdfs=pdfs,
        server=env.get("OCR_PIPELINE_SERVER") or None,
        model=env.get("OCR_PIPELINE_MODEL", "allenai/olmOCR-2-7B-1025-FP8"),
        # An EnvVar keeps the key's value out of the UI's resource view and the run config.
        api_key=EnvVar("OCR_PIPELINE_API_KEY") if env.get("OCR_PIPELINE_API_KEY") else None,
        markdown=env.get("OCR_PIPELINE_MARKDOWN", "0") == "1",
        apply_filter=env.get("OCR_PIPELINE_APPLY_FILTER", "0") == "1",
        pages_per_group=int(env.get("OCR_PIPELINE_PAGES_PER_GROUP", DEFAULT_PAGES_PER_GROUP)),
        ocr_launcher=env.get("OCR_PIPELINE_LAUNCHER", "subprocess"),
    )
