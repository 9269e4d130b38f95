"""Pipeline settings shared by the CLI, the Dagster resources and the OCR worker (no Dagster here)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

PIPELINE_VERSION = "0.1.0"

# olmOCR's defaults, kept so results compare side by side.
DEFAULT_PAGES_PER_GROUP = 500
DEFAULT_TARGET_LONGEST_IMAGE_DIM = 1288
DEFAULT_MAX_PAGE_RETRIES = 8
DEFAULT_MAX_PAGE_ERROR_RATE = 0.004
# A rendered page never exceeds this many pixels, whatever the PDF claims its size is.
MAX_PAGE_PIXELS = 1288 * 1288 * 4
# A PDF with more pages than this is rejected rather than allowed to occupy a whole group.
MAX_PAGES_PER_PDF = 5000
# Input files larger than this are rejected before they are read.
MAX_INPUT_BYTES = 512 * 1024 * 1024
# How the VLM worker is started: a subprocess next to Dagster, or a GPU pod per partition (ocr_pipeline.k8s).
OCR_LAUNCHERS = ("subprocess", "k8s")


@dataclass
class PipelineSettings:
    """Everything a run needs to know; the CLI's flags map one to one onto these fields."""

    workspace: str
    pdfs: list[str] = field(default_factory=list)
    server: str | None = None
    model: str = "allenai/olmOCR-2-7B-1025-FP8"
    api_key: str | None = None
    markdown: bool = False
    apply_filter: bool = False
    pages_per_group: int = DEFAULT_PAGES_PER_GROUP
    workers: int = 1
    max_concurrent_requests: int = 64
    max_page_retries: int = DEFAULT_MAX_PAGE_RETRIES
    max_page_error_rate: float = DEFAULT_MAX_PAGE_ERROR_RATE
    target_longest_image_dim: int = DEFAULT_TARGET_LONGEST_IMAGE_DIM
    guided_decoding: bool = False
    ocr_launcher: str = "subprocess"

    def validate(self) -> PipelineSettings:
        """Raise ValueError with a clear message for out-of-range values; returns self."""
        if not self.workspace:
            raise ValueError("a workspace (local folder or s3://bucket/prefix) is required")
        if self.pages_per_group < 1:
            raise ValueError("pages_per_group must be at least 1")
        if not 64 <= self.target_longest_image_dim <= 4096:
            raise ValueError("target_longest_image_dim must be between 64 and 4096")
        if not 0.0 <= self.max_page_error_rate <= 1.0:
            raise ValueError("max_page_error_rate must be between 0 and 1")
        if self.max_page_retries < 1:
            raise ValueError("max_page_retries must be at least 1")
        if self.workers < 1 or self.max_concurrent_requests < 1:
            raise ValueError("workers and max_concurrent_requests must be at least 1")
        if self.ocr_launcher not in OCR_LAUNCHERS:
            raise ValueError(f"ocr_launcher must be one of {', '.join(OCR_LAUNCHERS)}")
        return self

    def to_dict(self, *, redact: bool = True) -> dict[str, Any]:
        """A plain dict; the API key is masked unless `redact` is False."""
        data = asdict(self)
        if redact and data.get("api_key"):
            data["api_key"] = "***"
        return data
