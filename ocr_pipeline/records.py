"""The per-page and per-input records every stage and engine exchanges (no Dagster here)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

# Stages named in rejected/ ledger lines, in pipeline order.
STAGES = ("inventory", "filter", "render", "ocr", "dolma")
# The error of a page the PDF itself would not render: the input's fault, not the engine's (the blocking
# page-error check leaves these to the shard stage, which rejects their document on its own).
UNREADABLE_PAGE_PREFIX = "unreadable page: "
# The kinds of text layer a page row carries (its `text_layer_kind`): the full layout (reading order, running heads
# dropped, tables; what the CPU engine answers with and a fallback page stores) or pdfium's plain text (what the VLM
# path's signals need of a page the model reads). Rows written before the column carry the full layout.
TEXT_LAYOUT = "layout"
TEXT_PLAIN = "plain"
# What a `route auto` run asks of the reader: the full layout, and each page's routing evidence beside it (the rows'
# `text_layer_kind` says LAYOUT: that is what their text is).
TEXT_ROUTE = "route"


@dataclass(frozen=True)
class Rejection:
    """One input that produced no document: a line of rejected/<group>.jsonl."""

    source: str
    reason: str
    stage: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """The ledger line; `detail` only when there is one."""
        line: dict[str, Any] = {"source": self.source, "reason": self.reason, "stage": self.stage}
        if self.detail:
            line["detail"] = self.detail
        return line


@dataclass
class PageInput:
    """What an OCR engine gets for one page: the rendered image and the PDF's own text layer."""

    source_hash: str
    page_num: int  # 1-based
    png: bytes | None
    width: int = 0
    height: int = 0
    text_layer: str = ""  # the PDF's text for this page, "" for images and scans
    text_layer_trusted: bool = False
    image_covered: bool = False  # an image covers most of the page: a trusted layer over it may be hidden OCR

    @classmethod
    def from_row(cls, row: Mapping[str, Any], source_hash: str | None = None) -> PageInput:
        """The engine's input for a page row (pdf/page_rows), named by `source_hash` or else the row's sha256."""
        return cls(
            source_hash=row["sha256"] if source_hash is None else source_hash,
            page_num=row["page_num"],
            png=row["png"],
            width=row["width"] or 0,
            height=row["height"] or 0,
            text_layer=row["text_layer"] or "",
            text_layer_trusted=bool(row["text_layer_trusted"]),
            image_covered=bool(row.get("image_covered")),  # absent from pages written before the column
        )


@dataclass
class PageResult:
    """One page's OCR outcome: identical fields whichever engine produced it."""

    source_hash: str
    page_num: int  # 1-based
    text: str
    primary_language: str | None = None
    is_rotation_valid: bool = True
    # Degrees the rendered page must turn counter-clockwise (PIL's ROTATE_<n>) to read upright: olmOCR's convention.
    rotation_correction: int = 0
    is_table: bool = False
    is_diagram: bool = False
    engine: str = ""
    model: str = ""
    is_fallback: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    attempts: int = 1
    error: str | None = None
    elapsed_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (JSON and Parquet friendly)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PageResult:
        """Rebuild from `to_dict` output, ignoring unknown keys written by newer versions."""
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})
