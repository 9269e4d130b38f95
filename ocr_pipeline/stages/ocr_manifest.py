"""The OCR stage's outputs: the manifest's columns (`manifests/ocr/<group>.parquet`) and the counts of one group."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

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
        # `route auto` (stages/page_routes.py): "text_layer" (read from its layer) or "model", and why it could not
        # be read from its layer (a JSON list); null where the run did not route.
        ("route", pa.string()),
        ("route_reasons", pa.string()),
        # The page's quality signals as a JSON object (ocr_pipeline.quality.signals); null in older manifests.
        ("quality", pa.string()),
    ]
)


@dataclass
class OcrResult:
    """Counts, tokens and speed of one group's OCR."""

    pages: int = 0
    memo_hits: int = 0
    # Pages read from their text layer by `route auto` (memo hits included), and pages the engine read in this run.
    routed_pages: int = 0
    engine_pages: int = 0
    fallback_pages: int = 0
    error_pages: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    languages: dict[str, int] = field(default_factory=dict)

    @property
    def pages_per_second(self) -> float:
        """Pages done per wall-clock second (memo hits included)."""
        return self.pages / self.seconds if self.seconds > 0 else 0.0
