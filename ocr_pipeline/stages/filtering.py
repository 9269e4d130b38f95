"""The filter stage: olmOCR's language, form and spam filters, each drop recorded as a rejection."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ocr_pipeline.filters import check_pdf
from ocr_pipeline.layout import filtered_key
from ocr_pipeline.ledger import write_stage_rejections
from ocr_pipeline.pdf_probe import open_pdf
from ocr_pipeline.records import Rejection
from ocr_pipeline.stages.inventory import local_input_path, read_group
from ocr_pipeline.storage import Workspace
from ocr_pipeline.tables import write_table

FILTERED_SCHEMA = pa.schema(
    [
        ("source", pa.string()),
        ("sha256", pa.string()),
        ("keep", pa.bool_()),
        ("reason", pa.string()),
        ("detail", pa.string()),
    ]
)


@dataclass
class FilterResult:
    """Counts of one group's filtering."""

    kept: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    kept_rows: list[dict[str, Any]] = field(default_factory=list)


def filter_group(workspace: Workspace, group: str, apply_filter: bool) -> FilterResult:
    """Decide keep/reject for every readable input of the group and write the decisions."""
    result = FilterResult()
    decisions, rejections = [], []
    inventory_rejections = []
    for row in read_group(workspace, group):
        if row["status"] != "ok":
            inventory_rejections.append(
                Rejection(row["source"], row["reason"] or "unreadable", "inventory", row["detail"] or "")
            )
            continue
        keep, reason, detail = True, None, ""
        if apply_filter and row["kind"] == "pdf":
            keep, reason, detail = _decide(local_input_path(row, workspace))
        decisions.append(
            {
                "source": row["source"],
                "sha256": row["sha256"],
                "keep": keep,
                "reason": reason,
                "detail": detail,
            }
        )
        if keep:
            result.kept += 1
            result.kept_rows.append(row)
        else:
            rejections.append(Rejection(row["source"], reason or "filtered", "filter", detail))
            result.rejected[reason or "filtered"] = result.rejected.get(reason or "filtered", 0) + 1
    # Inventory refusals enter the ledger here, the first stage that runs per partition.
    write_stage_rejections(workspace, "inventory", group, inventory_rejections)
    write_stage_rejections(workspace, "filter", group, rejections)
    write_table(workspace, filtered_key(group), decisions, FILTERED_SCHEMA)
    return result


def _decide(path: str) -> tuple[bool, str | None, str]:
    """Run the filters on one PDF; a PDF the filters cannot read is kept for the later stages to judge."""
    try:
        doc = open_pdf(path)
    except Exception as exc:  # noqa: BLE001 - the render stage will record the real failure
        return True, None, f"filter skipped: {exc}"
    try:
        decision = check_pdf(doc)
    finally:
        doc.close()
    return decision.keep, decision.reason, decision.detail or ""
