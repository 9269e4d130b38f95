"""The filter stage: read inputs the scan did not (S3), then olmOCR's language, form and spam filters.

Its manifest is the authoritative record of each input's bytes (hash, page count) for the later stages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ocr_pipeline.inputs.fetch import InputMissing, open_input
from ocr_pipeline.pdf.input_facts import probe_location
from ocr_pipeline.pdf.sandbox.parent import PdfSandbox, SandboxAborted
from ocr_pipeline.records import Rejection
from ocr_pipeline.settings import DEFAULT_PDF_MEMORY_MB
from ocr_pipeline.stages.pdf_inventory import read_group
from ocr_pipeline.workspace.keys import filtered_key
from ocr_pipeline.workspace.ledger import write_stage_rejections
from ocr_pipeline.workspace.manifest_schemas import FILTERED_SCHEMA
from ocr_pipeline.workspace.storage import Workspace
from ocr_pipeline.workspace.tables import write_table


@dataclass
class FilterResult:
    """Counts of one group's filtering, and what it decided."""

    kept: int = 0
    probed: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    input_rejections: list[Rejection] = field(default_factory=list)
    filter_rejections: list[Rejection] = field(default_factory=list)

    def refuse(self, rejection: Rejection) -> None:
        """Record one refused input under its stage."""
        target = self.input_rejections if rejection.stage == "inventory" else self.filter_rejections
        target.append(rejection)
        self.rejected[rejection.reason] = self.rejected.get(rejection.reason, 0) + 1


def filter_group(
    workspace: Workspace,
    group: str,
    apply_filter: bool,
    input_client: Any = None,
    pdf_memory_mb: int = DEFAULT_PDF_MEMORY_MB,
) -> FilterResult:
    """Decide keep/reject for every usable input of the group and write the decisions (the PDF reader capped at
    `pdf_memory_mb` MiB)."""
    result = FilterResult()
    # One PDF reader child for the group: a file that hangs or crashes pdfium is refused, not fatal.
    with PdfSandbox(memory_mb=pdf_memory_mb) as sandbox:
        for row in read_group(workspace, group):
            _decide_row(row, workspace, apply_filter, input_client, sandbox, result)
    # Inputs that could not be read enter the ledger here, the first stage that runs per partition.
    write_stage_rejections(workspace, "inventory", group, result.input_rejections)
    write_stage_rejections(workspace, "filter", group, result.filter_rejections)
    write_table(workspace, filtered_key(group), result.decisions, FILTERED_SCHEMA)
    return result


def _decide_row(
    row: dict[str, Any],
    workspace: Workspace,
    apply_filter: bool,
    input_client: Any,
    sandbox: PdfSandbox,
    result: FilterResult,
) -> None:
    """Read the input if the scan did not, then keep or reject it."""
    if row["status"] == "ok" and not row["probed"]:
        facts = probe_location(row["kind"], row["location"], workspace, input_client, sandbox)
        result.probed += 1
        row.update(sha256=facts.sha256, page_count=facts.page_count)
        if facts.reason:
            row.update(status="rejected", reason=facts.reason, detail=facts.detail)
    if row["status"] != "ok":
        result.refuse(Rejection(row["source"], row["reason"] or "unreadable", "inventory", row["detail"] or ""))
        return
    keep, reason, detail = True, None, ""
    if apply_filter and row["kind"] == "pdf":
        try:
            keep, reason, detail = _filters(row["location"], workspace, input_client, sandbox)
        except InputMissing as exc:  # gone since the scan read it
            result.refuse(Rejection(row["source"], "input_missing", "filter", str(exc)))
            return
    result.decisions.append(
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
        result.refuse(Rejection(row["source"], reason or "filtered", "filter", detail))


def _filters(
    location: str, workspace: Workspace, input_client: Any, sandbox: PdfSandbox
) -> tuple[bool, str | None, str]:
    """Run the filters on one PDF; a PDF the filters cannot read is kept for the render stage to judge."""
    try:
        with open_input(location, workspace, input_client) as path:
            decision = sandbox.filter(path)
    except SandboxAborted as exc:
        return True, None, f"filter skipped: {exc}"
    return bool(decision["keep"]), decision["reason"], decision["detail"] or ""
