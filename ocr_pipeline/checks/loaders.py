"""One work group's outputs as rows per dataset (read once, lazily), and the metrics expressions can name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ocr_pipeline.checks.expressions import Evaluator, parse_expression
from ocr_pipeline.workspace.keys import dolma_key, filtered_key, inventory_key, ocr_key, pages_key, rejected_key
from ocr_pipeline.workspace.storage import Workspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl, read_table

# Page images are megabytes each: the checks read every column of pages/<group>.parquet but `png`.
PAGE_COLUMNS = ["source", "sha256", "page_num", "width", "height", "text_layer_trusted", "render_error"]
# Columns that identify a row in the samples a failed check shows.
KEY_COLUMNS = {
    "pdf_inventory": ["source", "status", "reason"],
    "filtered_pdfs": ["source", "keep", "reason"],
    "page_images": ["source", "page_num"],
    "vlm_ocr_outputs": ["source", "page_num"],
    "dolma_shards": ["id", "metadata.Source-File"],
    "rejected": ["source", "reason", "stage"],
}
# Page-level conditions behind the rate tests. An error page failed in the engine and has no text at all;
# a fallback page failed in the engine but its text layer was kept (the shard stage judges those per document).
PAGE_PREDICATES = {
    "error_pages": "error is not None and len(strip(coalesce(text, ''))) == 0",
    "fallback_pages": "is_fallback",
}
# Metrics a bare name in an `expression` refers to, each itself an expression over the dataset's rows.
METRICS: dict[str, dict[str, str]] = {
    "pdf_inventory": {"inputs": "count()", "ok_inputs": "count_if(status == 'ok')"},
    "filtered_pdfs": {"inputs": "count()", "kept": "count_if(keep)"},
    "page_images": {
        "pages": "count()",
        "documents": "count_distinct(source)",
        "render_errors": "count_if(render_error is not None)",
    },
    "vlm_ocr_outputs": {
        "pages": "count()",
        "documents": "count_distinct(source)",
        "fallback_pages": f"count_if({PAGE_PREDICATES['fallback_pages']})",
        "error_pages": f"count_if({PAGE_PREDICATES['error_pages']})",
        "memo_hits": "count_if(memo_hit)",
        "input_tokens": "sum(input_tokens)",
        "output_tokens": "sum(output_tokens)",
    },
    "dolma_shards": {
        "documents": "count()",
        "pages": "sum(len(attributes.pdf_page_numbers))",
        "fallback_pages": "sum(col('metadata.total-fallback-pages'))",
        "characters": "sum(len(text))",
        "input_tokens": "sum(col('metadata.total-input-tokens'))",
        "output_tokens": "sum(col('metadata.total-output-tokens'))",
    },
    "rejected": {"rejections": "count()"},
}


class MissingOutput(Exception):
    """An output a test needs was not written (the asset has not run for this partition)."""


class PartitionData:
    """The outputs of one work group, each dataset read on first use and then kept."""

    def __init__(self, workspace: Workspace, group: str) -> None:
        self.workspace = workspace
        self.group = group
        self._cache: dict[str, list[dict[str, Any]]] = {}

    def rows(self, dataset: str) -> list[dict[str, Any]]:
        """All rows of a dataset (`dolma_shards`, `vlm_ocr_outputs`, ..., `rejected`)."""
        if dataset not in self._cache:
            self._cache[dataset] = self._load(dataset)
        return self._cache[dataset]

    def _load(self, dataset: str) -> list[dict[str, Any]]:
        g, ws = self.group, self.workspace
        if dataset == "rejected":
            # The ledger is written with the shard; before that an absent ledger means "no rejections yet".
            return read_jsonl(ws, rejected_key(g))
        if dataset == "dolma_shards":
            self._require(dolma_key(g))
            return read_gzip_jsonl(ws.read_bytes(dolma_key(g)))
        key, columns = {
            "pdf_inventory": (inventory_key(g), None),
            "filtered_pdfs": (filtered_key(g), None),
            "page_images": (pages_key(g), PAGE_COLUMNS),
            "vlm_ocr_outputs": (ocr_key(g), None),
        }[dataset]
        self._require(key)
        return read_table(ws, key, columns).to_pylist()

    def _require(self, key: str) -> None:
        if not self.workspace.exists(key):
            raise MissingOutput(f"{key} does not exist in {self.workspace.uri}")

    def metrics(self, dataset: str) -> dict[str, Callable[[], Any]]:
        """The dataset's named metrics, computed only when an expression uses them."""

        def metric(source: str) -> Callable[[], Any]:
            tree = parse_expression(source, per_row=False)
            return lambda: Evaluator(self.rows(dataset), {}).value(tree)

        return {name: metric(source) for name, source in METRICS.get(dataset, {}).items()}
