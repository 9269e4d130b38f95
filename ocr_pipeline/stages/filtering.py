"""The filter stage: read inputs the scan did not (S3), then olmOCR's language, form and spam filters.

Its manifest is the authoritative record of each input's bytes (hash, page count) for the later stages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ocr_pipeline.filters import check_pdf
from ocr_pipeline.inputs import InputMissing, open_input
from ocr_pipeline.layout import filtered_key
from ocr_pipeline.ledger import write_stage_rejections
from ocr_pipeline.pdf_probe import open_pdf
from ocr_pipeline.probing import probe_location
from ocr_pipeline.records import Rejection
from ocr_pipeline.stages.inventory import read_group
from ocr_pipeline.storage import Workspace
from ocr_pipeline.tables import write_table

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


@dataclass
class FilterResult:
    """Counts of one group's filtering."""

    kept: int = 0
    probed: int = 0
    rejected: dict[str, int] = field(default_factory=dict)


def filter_group(workspace: Workspace, group: str, apply_filter: bool, input_client: Any = None) -> FilterResult:
    """Decide keep/reject for every usable input of the group and write the decisions."""
    result = FilterResult()
    decisions, input_rejections, filter_rejections = [], [], []
    for row in read_group(workspace, group):
        if row["status"] == "ok" and not row["probed"]:
            facts = probe_location(row["kind"], row["location"], workspace, input_client)
            result.probed += 1
            row.update(sha256=facts.sha256, page_count=facts.page_count)
            if facts.reason:
                row.update(status="rejected", reason=facts.reason, detail=facts.detail)
        if row["status"] != "ok":
            reason = row["reason"] or "unreadable"
            input_rejections.append(Rejection(row["source"], reason, "inventory", row["detail"] or ""))
            result.rejected[reason] = result.rejected.get(reason, 0) + 1
            continue
        keep, reason, detail = True, None, ""
        if apply_filter and row["kind"] == "pdf":
            keep, reason, detail = _decide(row["location"], workspace, input_client)
        decisions.append(
            {
                "source": row["source"],
                "sha256": row["sha256"],
                "page_count": row["page_count"],
                "keep": keep,
                "reason": reason,
                "detail": detail,
            }
        )
        if keep:
            result.kept += 1
        else:
            filter_rejections.append(Rejection(row["source"], reason or "filtered", "filter", detail))
            result.rejected[reason or "filtered"] = result.rejected.get(reason or "filtered", 0) + 1
    # Inputs that could not be read enter the ledger here, the first stage that runs per partition.
    write_stage_rejections(workspace, "inventory", group, input_rejections)
    write_stage_rejections(workspace, "filter", group, filter_rejections)
    write_table(workspace, filtered_key(group), decisions, FILTERED_SCHEMA)
    return result


def _decide(location: str, workspace: Workspace, input_client: Any) -> tuple[bool, str | None, str]:
    """Run the filters on one PDF; a PDF the filters cannot read is kept for the render stage to judge."""
    try:
        with open_input(location, workspace, input_client) as path:
            doc = open_pdf(path)
            try:
                decision = check_pdf(doc)
            finally:
                doc.close()
    except InputMissing:
        raise
    except Exception as exc:  # noqa: BLE001 - the render stage will record the real failure
        return True, None, f"filter skipped: {exc}"
    return decision.keep, decision.reason, decision.detail or ""
