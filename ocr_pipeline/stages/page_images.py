"""The render stage: every page of the group's kept inputs to a PNG plus its text layer, one Parquet per group."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ocr_pipeline.inputs.fetch import InputMissing, open_input
from ocr_pipeline.pdf.page_rows import PAGE_SCHEMA
from ocr_pipeline.pdf.sandbox.parent import PdfSandbox, SandboxAborted, time_limit
from ocr_pipeline.records import TEXT_LAYOUT, Rejection
from ocr_pipeline.settings import DEFAULT_PDF_MEMORY_MB
from ocr_pipeline.stages.pdf_inventory import read_group
from ocr_pipeline.workspace.keys import filtered_key, pages_key
from ocr_pipeline.workspace.ledger import write_stage_rejections
from ocr_pipeline.workspace.storage import Workspace
from ocr_pipeline.workspace.tables import StreamingTableWriter, read_rows

# The sandbox child's page rows, plus which input they belong to.
PAGES_SCHEMA = pa.schema([("source", pa.string()), ("sha256", pa.string()), *PAGE_SCHEMA])


@dataclass
class RenderResult:
    """Counts of one group's rendering."""

    documents: int = 0
    pages: int = 0
    page_errors: int = 0
    trusted_text_pages: int = 0
    png_bytes: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    rejections: list[Rejection] = field(default_factory=list)


def kept_inputs(workspace: Workspace, group: str) -> list[dict[str, Any]]:
    """Inventory rows of the group that the filter stage kept, with the hash and page count it read."""
    kept = {r["source"]: r for r in read_rows(workspace, filtered_key(group)) if r["keep"]}
    rows = []
    for row in read_group(workspace, group):
        decision = kept.get(row["source"])
        if decision is not None:
            rows.append({**row, "sha256": decision["sha256"], "page_count": decision["page_count"]})
    return rows


def expected_pages(workspace: Workspace, group: str) -> int:
    """Pages the group's kept inputs hold (for progress bars: read from the small manifests only)."""
    return sum(int(row["page_count"] or 0) for row in kept_inputs(workspace, group))


def render_group(
    workspace: Workspace,
    group: str,
    target_dim: int,
    progress: Callable[[int], None] | None = None,
    input_client: Any = None,
    on_page: Callable[[dict[str, Any]], None] | None = None,
    text_layer: str = TEXT_LAYOUT,
    pdf_memory_mb: int = DEFAULT_PDF_MEMORY_MB,
) -> RenderResult:
    """Render every kept input's pages into `pages/<group>.parquet`; unrenderable inputs are rejected.

    `on_page` sees each page row as it is written (the OCR stream sends it to the server at once). `text_layer`
    is the kind of text layer the rows carry (records.TEXT_LAYOUT, or TEXT_PLAIN for an engine that reads the
    page itself: see factory.text_layer_kind). The reader child is capped at `pdf_memory_mb` MiB: an input past
    it is rejected (memory_exceeded), the group goes on.
    """
    result = RenderResult()
    rejections = []
    writer = StreamingTableWriter(workspace, pages_key(group), PAGES_SCHEMA)
    # One renderer child for the group: pdfium hangs and crashes stay in it (see pdf_sandbox).
    with PdfSandbox(memory_mb=pdf_memory_mb) as renderer:
        for row in kept_inputs(workspace, group):
            try:
                with open_input(row["location"], workspace, input_client) as path:
                    limit = time_limit(int(row["page_count"] or 1))
                    pages = renderer.render(row["kind"], path, target_dim, limit, text=text_layer)
                    # Counted apart: a document the child aborts midway must not count its pages already read.
                    tally = RenderResult()
                    count, unusable, first_error = _write_pages(pages, row, writer, tally, progress, on_page)
            except InputMissing as exc:
                rejections.append(Rejection(row["source"], "input_missing", "render", str(exc)))
                continue
            except SandboxAborted as exc:
                # Rows already written for it are ignored downstream: the ledger is what counts.
                rejections.append(Rejection(row["source"], exc.reason, "render", exc.detail))
                continue
            if count == 0 or unusable == count:
                # Rows already written for it are ignored downstream: the ledger is what counts.
                rejections.append(Rejection(row["source"], "render_failed", "render", first_error))
                continue
            result.documents += 1
            result.pages += count
            result.page_errors += tally.page_errors
            result.trusted_text_pages += tally.trusted_text_pages
            result.png_bytes += tally.png_bytes
    writer.close()
    for rejection in rejections:
        result.rejected[rejection.reason] = result.rejected.get(rejection.reason, 0) + 1
    result.rejections = rejections
    write_stage_rejections(workspace, "render", group, rejections)
    return result


def _write_pages(
    pages: Iterator[dict[str, Any]],
    row: dict[str, Any],
    writer: StreamingTableWriter,
    result: RenderResult,
    progress: Callable[[int], None] | None,
    on_page: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[int, int, str]:
    """Write one input's pages as they render; returns (pages, unusable pages, first error)."""
    count, unusable, first_error = 0, 0, ""
    try:
        for page in pages:
            page.update(source=row["source"], sha256=row["sha256"])
            writer.add(page)
            if on_page is not None:
                on_page(page)
            count += 1
            if page["render_error"]:
                first_error = first_error or page["render_error"]
                result.page_errors += 1
                unusable += not page["text_layer"]
            result.trusted_text_pages += bool(page["text_layer_trusted"])
            result.png_bytes += len(page["png"] or b"")
            if progress is not None:
                progress(1)
    except SandboxAborted:
        raise  # the caller records the child's fate as its own reason
    except Exception as exc:  # noqa: BLE001 - recorded in the ledger, the group goes on
        first_error, unusable = f"{type(exc).__name__}: {exc}", count
    return count, unusable, first_error
