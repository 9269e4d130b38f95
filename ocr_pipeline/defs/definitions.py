"""The code location `dagster dev -w workspace.yaml` loads."""

from dagster import Definitions

from ocr_pipeline.defs.assets import dolma_shards, filtered_pdfs, page_images, pdf_inventory, vlm_ocr_outputs
from ocr_pipeline.defs.jobs import inventory_job, ocr_job
from ocr_pipeline.defs.resources import config_from_env
from ocr_pipeline.progress import NullProgress

ALL_ASSETS = [pdf_inventory, filtered_pdfs, page_images, vlm_ocr_outputs, dolma_shards]

defs = Definitions(
    assets=ALL_ASSETS,
    jobs=[inventory_job, ocr_job],
    resources={"pipeline_config": config_from_env(), "progress": NullProgress()},
)
