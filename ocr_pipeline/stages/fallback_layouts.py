"""The full layout of pages rendered with the plain text only, computed when a page turns out to need it.

The VLM path renders each page with pdfium's plain text (page_rows.PLAIN): enough for the agreement signal, the
blank-page check and the language reference. A page that falls back to its text layer stores the full layout
instead, byte for byte what a render with the layout stores; this module reads it afterwards for just those
pages, one sandbox request per document (the running-head pass over the document's pages included), so the
untrusted PDF is parsed in the sandbox child as at render time.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Any

from ocr_pipeline.inputs.fetch import open_input
from ocr_pipeline.pdf.probe import sha256_file
from ocr_pipeline.pdf.sandbox.parent import PdfSandbox, SandboxAborted, time_limit
from ocr_pipeline.quality import PageFacts
from ocr_pipeline.records import TEXT_LAYOUT, TEXT_PLAIN, PageResult
from ocr_pipeline.settings import DEFAULT_PDF_MEMORY_MB
from ocr_pipeline.stages.page_images import kept_inputs
from ocr_pipeline.workspace.storage import Workspace

log = logging.getLogger(__name__)

# The fields of a page row that come from its text layer (what a layout row replaces in a plain one).
TEXT_FIELDS = ("text_layer", "text_layer_trusted", "image_covered", "text_layer_kind")


class LayoutUnavailable(Exception):
    """The full layout could not be read (the input is gone or changed, the reader failed): one line why."""


def is_plain(row: dict[str, Any]) -> bool:
    """Whether the row carries the plain text only (rows written before the column carry the full layout)."""
    return row.get("text_layer_kind") == TEXT_PLAIN


class FallbackLayouts:
    """Reads the full layout of some pages of the group's inputs, in one sandbox opened on first use."""

    def __init__(
        self, workspace: Workspace, group: str, input_client: Any = None, pdf_memory_mb: int = DEFAULT_PDF_MEMORY_MB
    ) -> None:
        self.workspace, self.group, self.input_client = workspace, group, input_client
        self.pdf_memory_mb = pdf_memory_mb  # the reader child's cap, as at render time
        self._inputs: dict[str, dict[str, Any]] | None = None
        self._sandbox: PdfSandbox | None = None
        self.requests = 0  # sandbox requests made (one per document that needed any)

    def _input(self, source: str) -> dict[str, Any]:
        if self._inputs is None:
            self._inputs = {row["source"]: row for row in kept_inputs(self.workspace, self.group)}
        row = self._inputs.get(source)
        if row is None:
            raise LayoutUnavailable(f"{source} is not among the kept inputs of group {self.group}")
        return row

    def rows(self, source: str, pages: Iterable[int] | None = None) -> dict[int, dict[str, Any]]:
        """Page number to the text fields (TEXT_FIELDS) of the page's full layout; every page when `pages` is None.

        Raises LayoutUnavailable with the reason when the layout cannot be read.
        """
        wanted = None if pages is None else sorted(set(pages))
        if wanted == []:
            return {}
        row = self._input(source)
        self.requests += 1
        try:
            with open_input(row["location"], self.workspace, self.input_client) as path:
                # The bytes rendered before, not whatever lies at the location now.
                if row.get("sha256") and sha256_file(path) != row["sha256"]:
                    raise LayoutUnavailable(f"{source} changed since its pages were rendered")
                if self._sandbox is None:
                    self._sandbox = PdfSandbox(memory_mb=self.pdf_memory_mb)
                limit = time_limit(int(row.get("page_count") or 1))
                found = self._sandbox.render(row["kind"], path, 0, limit, text=TEXT_LAYOUT, pages=wanted, images=False)
                return {page["page_num"]: {name: page[name] for name in TEXT_FIELDS} for page in found}
        except LayoutUnavailable:
            raise
        except SandboxAborted as exc:
            raise LayoutUnavailable(f"{exc.reason}: {exc.detail}") from None
        except Exception as exc:  # noqa: BLE001 - a missing input or client: the page keeps its plain text
            raise LayoutUnavailable(f"{type(exc).__name__}: {exc}") from None

    def close(self) -> None:
        """Stop the sandbox child, if one was started."""
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None


def with_layouts(
    waiting: list[tuple[str, PageResult, PageFacts]], layouts: FallbackLayouts
) -> Iterator[tuple[str, PageResult, PageFacts]]:
    """Fallback results of plain rows with their text replaced by the page's full layout, one request a document.

    Where the layout cannot be read the page keeps its plain text, and says so in `extra` (`text_layer_kind`,
    `layout_error`): the page is still recorded, as a fallback.
    """
    by_source: dict[str, list[tuple[PageResult, PageFacts]]] = {}
    for source, page, facts in waiting:
        by_source.setdefault(source, []).append((page, facts))
    for source, pages in by_source.items():
        why = "the page is missing from its document's layout"
        try:
            found = layouts.rows(source, [page.page_num for page, _ in pages])
        except LayoutUnavailable as exc:
            found, why = {}, str(exc)
            log.warning("fallback pages of %s keep their plain text: %s", source, why)
        for page, facts in pages:
            fields = found.get(page.page_num)
            if fields is not None:
                page.text = fields["text_layer"] or ""
            else:
                page.extra = {**page.extra, "text_layer_kind": TEXT_PLAIN, "layout_error": why}
            yield source, page, facts


class RowUpgrade:
    """Plain rows given their full layout, for an engine that answers with the layer; a document is read at once."""

    def __init__(self, layouts: FallbackLayouts) -> None:
        self.layouts = layouts
        self._source: str | None = None
        self._rows: dict[int, dict[str, Any]] = {}

    def __call__(self, row: dict[str, Any]) -> dict[str, Any]:
        """The row with its full layout's text fields (unchanged when it has them, or they cannot be read)."""
        if not is_plain(row):
            return row
        if row["source"] != self._source:
            self._source, self._rows = row["source"], {}
            try:
                self._rows = self.layouts.rows(row["source"])
            except LayoutUnavailable as exc:
                log.warning("pages of %s keep their plain text for the engine: %s", row["source"], exc)
        fields = self._rows.get(row["page_num"])
        return {**row, **fields} if fields is not None else row
