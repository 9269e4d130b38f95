"""Jobs: the inventory scan, and the per-group OCR job that CI and backfills run by partition."""

from dagster import AssetSelection, define_asset_job

from ocr_pipeline.defs.assets import dolma_shards, filtered_pdfs, page_images, pdf_inventory, vlm_ocr_outputs
from ocr_pipeline.defs.partitions import work_groups

inventory_job = define_asset_job("inventory_job", selection=AssetSelection.assets(pdf_inventory))

ocr_job = define_asset_job(
    "ocr_job",
    selection=AssetSelection.assets(filtered_pdfs, page_images, vlm_ocr_outputs, dolma_shards),
    partitions_def=work_groups,
)
