"""The tables a check's SQL reads: their names, columns (Arrow schemas), identifying columns and metrics.

These schemas are what a query is bound against when the code location loads (empty tables of the right columns), so
an unknown table or column fails the load with the file and line. The three manifests' are the ones their stages
write (workspace/manifest_schemas.py); the page images' are the page rows' without the PNG.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa

from ocr_pipeline.pdf.page_rows import PAGE_SCHEMA
from ocr_pipeline.quality import QUALITY_ATTRIBUTES
from ocr_pipeline.workspace.manifest_schemas import FILTERED_SCHEMA, INVENTORY_SCHEMA, OCR_SCHEMA

# Page images are megabytes each: the table has every column of pages/<group>.parquet but `png`.
PAGE_COLUMNS = pa.schema(
    [("source", pa.string()), ("sha256", pa.string()), *(f for f in PAGE_SCHEMA if f.name != "png")]
)
_SPANS = pa.list_(pa.list_(pa.float64()))  # Dolma attribute spans [[start, end, value], ...]
DOLMA_COLUMNS = pa.schema(
    [
        ("id", pa.string()),
        ("text", pa.string()),
        ("source", pa.string()),
        ("added", pa.string()),
        ("created", pa.string()),
        (
            "metadata",
            pa.struct(
                [
                    ("Source-File", pa.string()),
                    ("pdf-total-pages", pa.int64()),
                    ("total-input-tokens", pa.int64()),
                    ("total-output-tokens", pa.int64()),
                    ("total-fallback-pages", pa.int64()),
                    ("total-routed-pages", pa.int64()),
                    ("engine", pa.string()),
                    ("model", pa.string()),
                    ("ocr-pipeline-version", pa.string()),
                ]
            ),
        ),
        (
            "attributes",
            pa.struct(
                [
                    ("pdf_page_numbers", pa.list_(pa.list_(pa.int64()))),
                    ("primary_language", pa.list_(pa.string())),
                    ("is_rotation_valid", pa.list_(pa.bool_())),
                    ("rotation_correction", pa.list_(pa.int64())),
                    ("is_table", pa.list_(pa.bool_())),
                    ("is_diagram", pa.list_(pa.bool_())),
                    ("ocr_pipeline__route__text_layer", _SPANS),
                    *((name, _SPANS) for name in (*QUALITY_ATTRIBUTES, "ocr_pipeline__quality__fallback")),
                ]
            ),
        ),
    ]
)
REJECTED_COLUMNS = pa.schema(
    [("source", pa.string()), ("reason", pa.string()), ("stage", pa.string()), ("detail", pa.string())]
)

# Table name -> its columns. `metrics` (below) is the one-row table of the checked asset's metrics.
SCHEMAS: dict[str, pa.Schema] = {
    "pdf_inventory": INVENTORY_SCHEMA,
    "filtered_pdfs": FILTERED_SCHEMA,
    "page_images": PAGE_COLUMNS,
    "vlm_ocr_outputs": OCR_SCHEMA,
    "dolma_shards": DOLMA_COLUMNS,
    "rejected": REJECTED_COLUMNS,
}
DATASETS = tuple(SCHEMAS)
METRICS_TABLE = "metrics"

# Columns that identify a row in the samples a failed check shows (dotted paths reach into structs).
KEY_COLUMNS = {
    "pdf_inventory": ["source", "status", "reason"],
    "filtered_pdfs": ["source", "keep", "reason"],
    "page_images": ["source", "page_num"],
    "vlm_ocr_outputs": ["source", "page_num"],
    "dolma_shards": ["id", "metadata.Source-File"],
    "rejected": ["source", "reason", "stage"],
}

# Page-level conditions behind the rate tests, in SQL over vlm_ocr_outputs. An error page failed in the engine and
# has no text at all; a fallback page failed in the engine but its text layer was kept (the shard stage judges
# those per document). `is_blank` is one of the session's macros (sql_database.MACROS).
PAGE_PREDICATES = {
    "error_pages": "error IS NOT NULL AND is_blank(text)",
    "fallback_pages": "coalesce(is_fallback, false)",
}


def _total(expression: str) -> str:
    """A sum that is 0 over no rows (as Python's), and a BIGINT rather than DuckDB's 128-bit sum of integers."""
    return f"CAST(coalesce(sum({expression}), 0) AS BIGINT)"


# The columns of the `metrics` table of each asset: one SQL aggregate over the asset's table each.
METRICS: dict[str, dict[str, str]] = {
    "pdf_inventory": {"inputs": "count(*)", "ok_inputs": "count_if(status = 'ok')"},
    "filtered_pdfs": {"inputs": "count(*)", "kept": "count_if(coalesce(keep, false))"},
    "page_images": {
        "pages": "count(*)",
        "documents": "count(DISTINCT source)",
        "render_errors": "count(render_error)",
    },
    "vlm_ocr_outputs": {
        "pages": "count(*)",
        "documents": "count(DISTINCT source)",
        "fallback_pages": f"count_if({PAGE_PREDICATES['fallback_pages']})",
        "error_pages": f"count_if({PAGE_PREDICATES['error_pages']})",
        "memo_hits": "count_if(coalesce(memo_hit, false))",
        "input_tokens": _total("input_tokens"),
        "output_tokens": _total("output_tokens"),
    },
    "dolma_shards": {
        "documents": "count(*)",
        "pages": _total("len(attributes.pdf_page_numbers)"),
        "fallback_pages": _total('metadata."total-fallback-pages"'),
        "characters": _total("length(text)"),
        "input_tokens": _total('metadata."total-input-tokens"'),
        "output_tokens": _total('metadata."total-output-tokens"'),
    },
    "rejected": {"rejections": "count(*)"},
}


def quote(name: str) -> str:
    """A SQL identifier in double quotes (a name like `Source-File` needs them)."""
    return '"' + name.replace('"', '""') + '"'


def column_type(dataset: str, path: str) -> pa.DataType | None:
    """The declared type of a dotted column path (`metadata.Source-File`), or None where the table has no such
    column (a key that itself holds dots is tried first, as a query spells it)."""
    schema = SCHEMAS.get(dataset)
    if schema is None:
        return None
    if path in schema.names:
        return schema.field(path).type
    kind: pa.DataType = pa.struct(list(schema))
    for part in path.split("."):
        if not pa.types.is_struct(kind) or kind.get_field_index(part) < 0:
            return None
        kind = kind.field(part).type
    return kind


def column_sql(path: str, table: str | None = None) -> str:
    """A dotted column path (`metadata.Source-File`) as SQL (`"metadata"."Source-File"`), optionally qualified."""
    parts = [quote(part) for part in path.split(".")]
    return ".".join([quote(table), *parts] if table else parts)


def metrics_sql(asset: str, names: Iterable[str] | None = None) -> str:
    """The one-row query of the asset's metrics (or of those `names`)."""
    wanted = METRICS[asset] if names is None else {name: METRICS[asset][name] for name in names}
    columns = ", ".join(f"{sql} AS {quote(name)}" for name, sql in wanted.items())
    return f"SELECT {columns} FROM {quote(asset)}"
