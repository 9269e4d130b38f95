"""Every setting declared once: name, default, help and environment variable; the CLI, Dagster and env derive from it.

`PipelineSettings` holds what one run needs (the `ocr-pipeline run` flags, the Dagster `pipeline_config` resource,
the `OCR_PIPELINE_*` variables a code location reads). `DeploymentSettings` holds what only a deployment tunes
(the sensor's bounds, schedules, the executor). The Kubernetes pod (`launch/k8s/config.py`), the managed vLLM
server (`launch/vllm_server.py`) and the S3 clients (`workspace/s3.py`) declare theirs with the same `option()`
(`settings/fields.py`), and every class is read from the environment by its one parser, `read_env`, only when a
caller asks: nothing reads a variable at import. Plain dataclasses: no Dagster here.
"""

from ocr_pipeline.settings.fields import (
    ENV_PREFIX,
    FALSE_WORDS,
    TRUE_WORDS,
    base_type,
    declared_default,
    field_types,
    fields_of,
    option,
    parse_env_value,
    read_env,
    values_from_env,
    variable_of,
)
from ocr_pipeline.settings.pipeline import (
    DEFAULT_MAX_ARCHIVE_BYTES,
    DEFAULT_MAX_PAGE_ERROR_RATE,
    DEFAULT_MAX_PAGE_RETRIES,
    DEFAULT_MODEL,
    DEFAULT_PAGES_PER_GROUP,
    DEFAULT_PDF_MEMORY_MB,
    DEFAULT_TARGET_LONGEST_IMAGE_DIM,
    MAX_INPUT_BYTES,
    MAX_PAGE_PIXELS,
    MAX_PAGES_PER_PDF,
    OCR_LAUNCHERS,
    PIPELINE_VERSION,
    ROUTE_MODES,
    DeploymentSettings,
    PipelineSettings,
    deployment_from_env,
    environment_rows,
    samples_dir,
    settings_from_env,
)

__all__ = [
    "DEFAULT_MAX_ARCHIVE_BYTES",
    "DEFAULT_MAX_PAGE_ERROR_RATE",
    "DEFAULT_MAX_PAGE_RETRIES",
    "DEFAULT_MODEL",
    "DEFAULT_PAGES_PER_GROUP",
    "DEFAULT_PDF_MEMORY_MB",
    "DEFAULT_TARGET_LONGEST_IMAGE_DIM",
    "ENV_PREFIX",
    "FALSE_WORDS",
    "MAX_INPUT_BYTES",
    "MAX_PAGES_PER_PDF",
    "MAX_PAGE_PIXELS",
    "OCR_LAUNCHERS",
    "PIPELINE_VERSION",
    "ROUTE_MODES",
    "TRUE_WORDS",
    "base_type",
    "DeploymentSettings",
    "PipelineSettings",
    "declared_default",
    "deployment_from_env",
    "environment_rows",
    "field_types",
    "fields_of",
    "option",
    "parse_env_value",
    "read_env",
    "samples_dir",
    "settings_from_env",
    "values_from_env",
    "variable_of",
]
