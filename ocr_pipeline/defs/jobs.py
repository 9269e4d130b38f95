"""Jobs: the inventory scan, and the per-group OCR job that CI and backfills run by partition."""

from dagster import AssetSelection, define_asset_job

from ocr_pipeline.defs.assets import dolma_shards, filtered_pdfs, pdf_inventory, render_and_ocr

inventory_job = define_asset_job("inventory_job", selection=AssetSelection.assets(pdf_inventory))

# Partitioned by work_groups: Dagster infers it from the selected assets. render_and_ocr is page_images and
# vlm_ocr_outputs, in one op.
ocr_job = define_asset_job("ocr_job", selection=AssetSelection.assets(filtered_pdfs, render_and_ocr, dolma_shards))
