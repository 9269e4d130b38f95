"""The run settings (`PipelineSettings`) and the deployment's (`DeploymentSettings`), each field declared once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ocr_pipeline.settings.fields import declared_default, fields_of, option, read_env

PIPELINE_VERSION = "0.1.0"

# olmOCR's defaults, kept so results compare side by side.
DEFAULT_PAGES_PER_GROUP = 500
DEFAULT_TARGET_LONGEST_IMAGE_DIM = 1288
DEFAULT_MAX_PAGE_RETRIES = 8
DEFAULT_MAX_PAGE_ERROR_RATE = 0.004
DEFAULT_MODEL = "allenai/olmOCR-2-7B-1025-FP8"
# A rendered page never exceeds this many pixels, whatever the PDF claims its size is.
MAX_PAGE_PIXELS = 1288 * 1288 * 4
# A PDF with more pages than this is rejected rather than allowed to occupy a whole group.
MAX_PAGES_PER_PDF = 5000
# Input files larger than this are rejected before they are read.
MAX_INPUT_BYTES = 512 * 1024 * 1024
# Bytes all archives of one run may expand to: a small .tar.gz that inflates to gigabytes is cut off here.
DEFAULT_MAX_ARCHIVE_BYTES = 2 * 1024 * 1024 * 1024
# Memory the PDF reader child may take (MiB of data: heap and anonymous maps, RLIMIT_DATA); 0 sets no cap.
DEFAULT_PDF_MEMORY_MB = 2048
# How the VLM worker is started: a subprocess next to Dagster, or a GPU pod per partition (ocr_pipeline.launch.k8s).
OCR_LAUNCHERS = ("subprocess", "k8s")
# The `route` setting: every page to the model (olmOCR's way), or each page on its own evidence (ocr_pipeline.routing).
ROUTE_MODES = ("model", "auto")


def samples_dir() -> Path:
    """The sample PDFs shipped inside the package (the default inputs of a code location)."""
    return Path(str(resources.files("ocr_pipeline") / "samples"))


@dataclass
class PipelineSettings:
    """Everything a run needs to know; each field is a CLI flag, a `pipeline_config` field and a variable."""

    workspace: str = option(
        "",
        "output folder or s3://bucket/prefix",
        env="WORKSPACE",
        flag=False,  # the positional WORKSPACE argument
        env_default=lambda: str(Path.cwd() / "ocr-workspace"),
    )
    pdfs: list[str] = option(
        [],
        "PDFs, images, folders, globs, .txt lists or .tar.gz archives (env: comma-separated)",
        env="PDFS",
        env_default=lambda: [str(samples_dir())],
    )
    server: str | None = option(None, "OpenAI-compatible endpoint (vLLM); without it the CPU engine runs", env="SERVER")
    model: str = option(DEFAULT_MODEL, "model name sent to the server", env="MODEL")
    api_key: str | None = option(
        None, "bearer token for the server (never logged; default $OCR_PIPELINE_API_KEY)", env="API_KEY", secret=True
    )
    markdown: bool = option(False, "also write markdown/<input path>.md per document", env="MARKDOWN")
    apply_filter: bool = option(False, "drop forms, non-English and SEO spam (as rejections)", env="APPLY_FILTER")
    pages_per_group: int = option(DEFAULT_PAGES_PER_GROUP, "pages per work group", env="PAGES_PER_GROUP")
    workers: int = option(1, "work groups processed at once", dagster=False)
    max_concurrent_requests: int = option(64, "requests in flight to the server", env="MAX_CONCURRENT_REQUESTS")
    max_page_retries: int = option(DEFAULT_MAX_PAGE_RETRIES, "attempts per page", env="MAX_PAGE_RETRIES")
    max_page_error_rate: float = option(
        DEFAULT_MAX_PAGE_ERROR_RATE, "largest share of fallback pages a document may have", env="MAX_PAGE_ERROR_RATE"
    )
    target_longest_image_dim: int = option(
        DEFAULT_TARGET_LONGEST_IMAGE_DIM,
        "longest side of rendered page images, in pixels",
        env="TARGET_LONGEST_IMAGE_DIM",
    )
    guided_decoding: bool = option(
        False, "send olmOCR's regex as guided_regex and structured_outputs", env="GUIDED_DECODING"
    )
    server_ready_timeout: float = option(
        60.0, "seconds to wait for the VLM server's GET /v1/models (CLI and worker)", env="SERVER_READY_TIMEOUT_S"
    )
    route: str = option(
        "model",
        "which pages go to the model: model (every page, as olmOCR) or auto (a page whose text layer is trusted, "
        "covers its ink and has a layout the reader is sure of is read from that layer); the CPU engine ignores it",
        env="ROUTE",
    )
    hourly_cost_usd: float = option(
        0.0, "what the OCR machine or GPU costs an hour; adds usd_per_million_pages", env="HOURLY_COST_USD"
    )
    max_archive_bytes: int = option(
        DEFAULT_MAX_ARCHIVE_BYTES,
        "bytes the run's archives may expand to in all; the member over it is rejected, the rest wait for the next run",
        env="MAX_ARCHIVE_BYTES",
    )
    follow_external_links: bool = option(
        False,
        "follow symlinks that leave their input folder (else rejected as unsafe_link)",
        env="FOLLOW_EXTERNAL_LINKS",
    )
    pdf_memory_mb: int = option(
        DEFAULT_PDF_MEMORY_MB,
        "MiB of memory the PDF reader child may take (0: no cap); a document past it is rejected as memory_exceeded",
        env="PDF_MEMORY_MB",
    )
    ocr_launcher: str = option(
        "subprocess",
        "where the VLM worker runs: subprocess, or k8s (a GPU pod per partition)",
        env="LAUNCHER",
        flag=False,
    )

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
        if self.max_archive_bytes < 0:
            raise ValueError("max_archive_bytes must not be negative")
        if self.pdf_memory_mb < 0:
            raise ValueError("pdf_memory_mb must not be negative")
        if self.server_ready_timeout <= 0:
            raise ValueError("server_ready_timeout must be positive")
        if self.route not in ROUTE_MODES:
            raise ValueError(f"route must be one of {', '.join(ROUTE_MODES)}, not {self.route!r}")
        if self.ocr_launcher not in OCR_LAUNCHERS:
            raise ValueError(f"ocr_launcher must be one of {', '.join(OCR_LAUNCHERS)}")
        return self

    def to_dict(self, *, redact: bool = True) -> dict[str, Any]:
        """A plain dict; secrets are masked unless `redact` is False."""
        data = asdict(self)
        for spec in fields_of(PipelineSettings):
            if redact and spec.metadata["secret"] and data.get(spec.name):
                data[spec.name] = "***"
        return data


CANARY_MODES = ("auto", "on", "off")


@dataclass
class DeploymentSettings:
    """What a deployment tunes beside the run settings: sensor bounds, schedules, executor, checks folder."""

    sensor_max_new_inputs: int = option(
        20_000, "new inputs one sensor tick lists (its inventory run scans them)", env="SENSOR_MAX_NEW_INPUTS"
    )
    sensor_max_groups: int = option(500, "work groups one sensor tick checks (round-robin)", env="SENSOR_MAX_GROUPS")
    sensor_max_runs: int = option(100, "runs one sensor tick requests at most", env="SENSOR_MAX_RUNS")
    sensor_interval_s: int = option(
        60,
        "seconds between the work-group sensor's ticks (Dagster's minimum_interval_seconds)",
        env="SENSOR_INTERVAL_S",
    )
    sensor_max_retries: int = option(
        2, "Dagster run retries of a sensor-requested run (dagster/max_retries)", env="SENSOR_MAX_RETRIES"
    )
    scan_cron: str = option("0 * * * *", "cron of the default scan_sources schedule", env="SCAN_CRON")
    sources_file: str = option(
        "", "YAML file of sources, one scan schedule each (name, pdfs, cron)", env="SOURCES_FILE"
    )
    executor: str = option(
        "", "in_process (default): a run's steps in one process; multiprocess; k8s: a pod per step", env="EXECUTOR"
    )
    checks_dir: str = option("", "folder of data-test YAML replacing the shipped checks", env="CHECKS_DIR")
    stream_pages: bool = option(
        True,
        "the CLI streams each page to the VLM server as it renders, overlapping groups (Dagster: the op's config)",
        env="STREAM_PAGES",
    )
    asset_owners: list[str] = option(
        [],
        "owners shown on every asset in the Dagster UI: emails or team:NAME, comma-separated",
        env="ASSET_OWNERS",
    )
    canary: str = option(
        "auto",
        "whether the sensor waits for a passed model_canary before any partition run: auto (with a VLM server), "
        "on, off",
        env="CANARY",
    )
    canary_min_pass_rate: float = option(
        0.8, "the model canary's pass rate below which it fails (its blocking check)", env="CANARY_MIN_PASS_RATE"
    )

    def __post_init__(self) -> None:
        if self.canary not in CANARY_MODES:
            raise ValueError(f"OCR_PIPELINE_CANARY must be one of {', '.join(CANARY_MODES)}, not {self.canary!r}")
        if not 0.0 <= self.canary_min_pass_rate <= 1.0:
            raise ValueError("OCR_PIPELINE_CANARY_MIN_PASS_RATE must be between 0 and 1")


def settings_from_env(environ: Mapping[str, str] | None = None) -> PipelineSettings:
    """Run settings from OCR_PIPELINE_* variables: what `dagster dev` and the daemon's runs use."""
    return read_env(PipelineSettings, environ)


def deployment_from_env(environ: Mapping[str, str] | None = None) -> DeploymentSettings:
    """Deployment settings from OCR_PIPELINE_* variables (read once, by the code location's `build_definitions`)."""
    return read_env(DeploymentSettings, environ)


def environment_rows() -> list[tuple[str, str, str]]:
    """(variable, default, meaning) for every variable of both settings classes: the table in docs/configuration.md."""
    rows = []
    for cls in (PipelineSettings, DeploymentSettings):
        for spec in fields_of(cls):
            if spec.metadata["env"]:
                shown = _shown_default(spec.name, declared_default(spec))
                rows.append((spec.metadata["env"], shown, spec.metadata["help"]))
    return rows


def _shown_default(name: str, default: Any) -> str:
    described = {"workspace": "./ocr-workspace", "pdfs": "the bundled samples"}
    if name in described:
        return described[name]
    if default in (None, "", []):
        return "unset"
    return str(default).lower() if isinstance(default, bool) else str(default)
