"""The columns of the three stage manifests that the stages write and checks read: one definition for both.

The inventory (`inventory/<group>.parquet`), the filter stage's decisions (`manifests/filtered/<group>.parquet`) and
the OCR manifest (`manifests/ocr/<group>.parquet`). The stages write them and checks/ binds its SQL against them;
both sit above the workspace, so the schemas live here rather than in a stage that checks may not import.
"""

from __future__ import annotations

import pyarrow as pa

INVENTORY_SCHEMA = pa.schema(
    [
        ("source", pa.string()),
        ("rel_path", pa.string()),
        ("kind", pa.string()),
        ("location", pa.string()),  # a local path, an s3:// URI, or `ws:<key>` for a copy in the workspace
        ("size", pa.int64()),
        ("sha256", pa.string()),
        ("etag", pa.string()),
        ("page_count", pa.int32()),  # an estimate until `probed`
        ("probed", pa.bool_()),  # S3 inputs are read by the filter stage, not by the scan
        ("status", pa.string()),  # "ok" or "rejected"
        ("reason", pa.string()),
        ("detail", pa.string()),
        ("group", pa.string()),
        ("added", pa.string()),  # ISO date the input was first inventoried: Dolma's `added`
    ]
)

FILTERED_SCHEMA = pa.schema(
    [
        ("source", pa.string()),
        ("sha256", pa.string()),
        ("page_count", pa.int32()),
        ("keep", pa.bool_()),
        ("reason", pa.string()),
        ("detail", pa.string()),
    ]
)

OCR_SCHEMA = pa.schema(
    [
        ("source", pa.string()),
        ("sha256", pa.string()),
        ("page_num", pa.int32()),
        ("text", pa.string()),
        ("primary_language", pa.string()),
        ("is_rotation_valid", pa.bool_()),
        ("rotation_correction", pa.int32()),
        ("is_table", pa.bool_()),
        ("is_diagram", pa.bool_()),
        ("engine", pa.string()),
        ("model", pa.string()),
        ("is_fallback", pa.bool_()),
        ("input_tokens", pa.int64()),
        ("output_tokens", pa.int64()),
        ("attempts", pa.int32()),
        ("error", pa.string()),
        ("elapsed_s", pa.float64()),
        ("memo_hit", pa.bool_()),
        ("extra", pa.string()),
        # `route auto` (routing/router.py): "text_layer" (read from its layer) or "model", and why it could not
        # be read from its layer (a JSON list); null where the run did not route.
        ("route", pa.string()),
        ("route_reasons", pa.string()),
        # The page's quality signals as a JSON object (ocr_pipeline.quality.signals); null in older manifests.
        ("quality", pa.string()),
    ]
)
