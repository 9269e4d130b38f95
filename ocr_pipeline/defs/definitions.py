"""The code location `dagster dev -w workspace.yaml` loads."""

import os

from dagster import Definitions, ExecutorDefinition

from ocr_pipeline.defs.assets import dolma_shards, filtered_pdfs, page_images, pdf_inventory, vlm_ocr_outputs
from ocr_pipeline.defs.automation import scan_schedules, work_group_sensor
from ocr_pipeline.defs.checks import ALL_CHECKS
from ocr_pipeline.defs.jobs import inventory_job, ocr_job
from ocr_pipeline.defs.resources import config_from_env
from ocr_pipeline.defs.s3_resources import s3_resource_from_env
from ocr_pipeline.progress import NullProgress

ALL_ASSETS = [pdf_inventory, filtered_pdfs, page_images, vlm_ocr_outputs, dolma_shards]


def executor_from_env() -> ExecutorDefinition | None:
    """OCR_PIPELINE_EXECUTOR=k8s runs each step in its own pod (k8s_job_executor); otherwise Dagster's default."""
    choice = os.environ.get("OCR_PIPELINE_EXECUTOR", "")
    if choice == "k8s":
        from dagster_k8s import k8s_job_executor

        return k8s_job_executor
    if choice not in ("", "default", "multiprocess"):
        raise ValueError(f"OCR_PIPELINE_EXECUTOR must be k8s or default, not {choice!r}")
    return None


defs = Definitions(
    assets=ALL_ASSETS,
    asset_checks=ALL_CHECKS,
    jobs=[inventory_job, ocr_job],
    sensors=[work_group_sensor],
    schedules=scan_schedules(),
    resources={
        "pipeline_config": config_from_env(),
        "progress": NullProgress(),
        "workspace_s3": s3_resource_from_env("workspace"),
        "input_s3": s3_resource_from_env("input"),
    },
    executor=executor_from_env(),
)
