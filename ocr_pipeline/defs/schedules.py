"""Scan schedules: one inventory run per source on its cron (OCR_PIPELINE_SOURCES_FILE), or one hourly default."""

from __future__ import annotations

from pathlib import Path

import yaml
from dagster import ScheduleDefinition

from ocr_pipeline.defs.jobs import inventory_job
from ocr_pipeline.settings import DeploymentSettings


def scan_schedules(deployment: DeploymentSettings) -> list[ScheduleDefinition]:
    """One inventory schedule per source in OCR_PIPELINE_SOURCES_FILE (YAML: name, pdfs, cron), else one default."""
    path = deployment.sources_file
    if not path:
        return [ScheduleDefinition(name="scan_sources", job=inventory_job, cron_schedule=deployment.scan_cron)]
    sources = yaml.safe_load(Path(path).read_text()) or {}
    schedules = []
    for source in sources.get("sources", []):
        missing = {"name", "pdfs", "cron"} - set(source)
        if missing:
            raise ValueError(f"{path}: source {source!r} lacks {sorted(missing)}")
        run_config = {"ops": {"pdf_inventory": {"config": {"pdfs": list(source["pdfs"])}}}}
        schedules.append(
            ScheduleDefinition(
                name=f"scan_{source['name']}", job=inventory_job, cron_schedule=source["cron"], run_config=run_config
            )
        )
    return schedules
