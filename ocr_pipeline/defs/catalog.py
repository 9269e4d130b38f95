"""What the asset catalog shows beside the graph: groups, kinds, tags, column schemas, owners, code references.

The static parts are declared with the assets; `catalog_assets` adds the deployment's parts (owners, `s3` when the
workspace is a bucket) and the code references, once, in `build_definitions`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa
from dagster import AssetsDefinition, AssetSpec, BetaWarning, TableColumn, TableSchema, with_source_code_references

from ocr_pipeline.stages.page_images import PAGES_SCHEMA
from ocr_pipeline.workspace.manifest_schemas import FILTERED_SCHEMA, INVENTORY_SCHEMA, OCR_SCHEMA

# Three groups, in the order a partition goes through them.
INVENTORY_GROUP = "inventory"
OCR_GROUP = "ocr"
OUTPUT_GROUP = "output"

# Dolma's fields as dolma_shards writes them (stages/dolma_documents.py); a JSON document has no Arrow schema.
DOLMA_COLUMNS = [
    ("id", "string", "SHA-1 of the source URI: a rerun replaces the document"),
    ("text", "string", "page texts joined by newlines"),
    ("source", "string", "always ocr-pipeline"),
    ("added", "string", "ISO date the input was first inventoried"),
    ("created", "string", "same as added"),
    ("metadata.Source-File", "string", "the input's URI (local path or s3://)"),
    ("metadata.pdf-total-pages", "int", "pages of the input"),
    ("metadata.total-input-tokens", "int", "prompt tokens the VLM spent (0 on the CPU engine)"),
    ("metadata.total-output-tokens", "int", "completion tokens the VLM spent (0 on the CPU engine)"),
    ("metadata.total-fallback-pages", "int", "pages that kept their text layer instead of OCR"),
    ("metadata.engine", "string", "engines that read the pages"),
    ("metadata.model", "string", "models that read the pages"),
    ("metadata.ocr-pipeline-version", "string", "the pipeline's version"),
    ("attributes.pdf_page_numbers", "list<[start, end, page]>", "character span of each page, 1-based pages"),
    ("attributes.primary_language", "list<string>", "per page"),
    ("attributes.is_rotation_valid", "list<bool>", "per page"),
    ("attributes.rotation_correction", "list<int>", "per page: 0, 90, 180 or 270"),
    ("attributes.is_table", "list<bool>", "per page"),
    ("attributes.is_diagram", "list<bool>", "per page"),
]
# Which file each column schema describes, so a reader knows what the columns belong to.
COLUMN_SOURCES = {
    "pdf_inventory": "inventory/groups/<group>.parquet",
    "filtered_pdfs": "manifests/filtered/<group>.parquet",
    "page_images": "pages/<group>.parquet",
    "vlm_ocr_outputs": "manifests/ocr/<group>.parquet",
    "dolma_shards": "dolma/<group>.jsonl.gz (one Dolma document a line)",
}


def arrow_table_schema(schema: pa.Schema) -> TableSchema:
    """A Dagster column schema from the Arrow schema a stage writes (the same object, so it cannot drift)."""
    return TableSchema(columns=[TableColumn(name=f.name, type=str(f.type)) for f in schema])


def dolma_table_schema() -> TableSchema:
    """The Dolma document's fields as a column schema (nested fields by dotted path)."""
    return TableSchema(columns=[TableColumn(name=n, type=t, description=d) for n, t, d in DOLMA_COLUMNS])


def column_schemas() -> dict[str, TableSchema]:
    """Each asset's column schema, by asset name."""
    return {
        "pdf_inventory": arrow_table_schema(INVENTORY_SCHEMA),
        "filtered_pdfs": arrow_table_schema(FILTERED_SCHEMA),
        "page_images": arrow_table_schema(PAGES_SCHEMA),
        "vlm_ocr_outputs": arrow_table_schema(OCR_SCHEMA),
        "dolma_shards": dolma_table_schema(),
    }


def definition_metadata(asset: str, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An asset's definition metadata: its column schema, which file that is, and anything `extra`."""
    return {
        "dagster/column_schema": column_schemas()[asset],
        "columns_of": COLUMN_SOURCES[asset],
        **(extra or {}),
    }


def _deployed(spec: AssetSpec, owners: Sequence[str], on_s3: bool) -> AssetSpec:
    """A spec with the deployment's owners and, for an s3:// workspace, the `s3` kind."""
    return spec.merge_attributes(owners=list(owners), kinds={"s3"} if on_s3 else set())


def catalog_assets(assets: Sequence[AssetsDefinition], owners: Sequence[str], workspace: str) -> list[Any]:
    """The assets as the code location shows them: owners, the `s3` kind where the workspace is, code references.

    No git links: the wheel runs outside a checkout, where a link would point at a commit nobody can name.
    """
    on_s3 = workspace.startswith("s3://")
    mapped = [a.map_asset_specs(lambda s: _deployed(s, owners, on_s3)) for a in assets]
    with warnings.catch_warnings():
        # with_source_code_references is marked beta in Dagster 1.13; it only adds metadata.
        warnings.simplefilter("ignore", BetaWarning)
        return list(with_source_code_references(mapped))
