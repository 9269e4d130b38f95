"""One input's page rows: each page rendered to a PNG beside its text layer and a verdict on that layer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pyarrow as pa

from ocr_pipeline.pdf.furniture import band_signatures
from ocr_pipeline.pdf.layout_budget import LayoutBudget, join_notes
from ocr_pipeline.pdf.probe import open_pdf
from ocr_pipeline.pdf.render import image_to_page, render_pdf_page, repair_crop_box
from ocr_pipeline.pdf.text_layer import (
    MIN_SCAN_IMAGE_SHARE,
    PageLayout,
    assess_text_layer,
    image_coverage,
    layout_text,
    page_layout,
    write_scripts,
)
from ocr_pipeline.settings import MAX_PAGE_PIXELS

PAGE_SCHEMA = pa.schema(
    [
        ("page_num", pa.int32()),
        ("png", pa.binary()),
        ("width", pa.int32()),
        ("height", pa.int32()),
        ("text_layer", pa.string()),
        ("text_layer_trusted", pa.bool_()),
        ("render_error", pa.string()),
        ("image_covered", pa.bool_()),
        # A repair the page needed to be read (a CropBox off the page), and the layout bounds that fired on it
        # (layout_budget.py: text off the page, a region read in simple order): the page is kept, unlike a
        # render_error.
        ("render_note", pa.string()),
    ]
)


# Layouts holding this many text runs and ruling lines in all (about 60 MB) are kept between the two passes; the
# pages past them are read twice. Counted in boxes, not pages: one page may hold 30,000 runs or 12,000 rules.
MAX_CACHED_BOXES = 200_000
# A head or footer line on this share of a document's pages (and on two at least) is a running head.
REPEAT_SHARE = 0.25


def _repeated_lines(
    doc: Any, cache: dict[int, PageLayout], notes: dict[int, str], on_page: Callable[[int], None] | None = None
) -> set[str]:
    """Signatures of lines that recur in the top or bottom band of the document's pages."""
    counts: dict[str, int] = {}
    n = len(doc)
    cached = 0
    for index in range(n if n > 1 else 0):
        if on_page is not None:
            on_page(index + 1)
        try:
            page = doc[index]
            try:
                # Repaired in the document before the text is read, so its geometry is the page's; noted once here.
                if note := repair_crop_box(page):
                    notes[index] = note
                layout = page_layout(page)
            finally:
                page.close()
        except MemoryError:
            raise  # the document's, not the page's: the sandbox rejects it as memory_exceeded
        except Exception:  # noqa: BLE001 - the page fails again, with its reason, in the second pass
            continue
        size = len(layout.runs) + len(layout.rules)
        if cached + size <= MAX_CACHED_BOXES:
            cache[index] = layout
            cached += size
        for sig in band_signatures(layout.runs, layout.height):
            counts[sig] = counts.get(sig, 0) + 1
    return {sig for sig, k in counts.items() if k >= max(2, REPEAT_SHARE * n)}


def _pdf_pages(path: str, target_dim: int, on_page: Callable[[int], None] | None) -> Iterator[dict[str, Any]]:
    """Pages one at a time, so a long document never sits in memory as images."""
    doc = open_pdf(path)
    try:
        # First pass: the text of every page, to find the running heads and footers they share.
        cache: dict[int, PageLayout] = {}
        notes: dict[int, str] = {}
        repeated = _repeated_lines(doc, cache, notes, on_page)
        for index in range(len(doc)):
            if on_page is not None:
                on_page(index + 1)
            row: dict[str, Any] = {"page_num": index + 1, "png": None, "width": 0, "height": 0, "render_note": None}
            try:
                page = doc[index]
                try:
                    row["render_note"] = repair_crop_box(page) or notes.pop(index, None)
                    layout = cache.pop(index, None) or page_layout(page)
                    budget = LayoutBudget()
                    text = layout_text(layout, repeated, marked=True, budget=budget)
                    row["render_note"] = join_notes(row["render_note"], layout.notes, budget.notes)
                    width_pt, height_pt = page.get_size()
                    images = image_coverage(page)
                finally:
                    page.close()
                quality = assess_text_layer(text, width_pt * height_pt, images)
                row.update(
                    text_layer=write_scripts(text),
                    text_layer_trusted=quality.trusted,
                    image_covered=images >= MIN_SCAN_IMAGE_SHARE,
                )
                rendered = render_pdf_page(doc, index, target_dim, MAX_PAGE_PIXELS)
                row.update(png=rendered.png, width=rendered.width, height=rendered.height, render_error=None)
            except MemoryError:
                raise  # the document's, not the page's: the sandbox rejects it as memory_exceeded
            except Exception as exc:  # noqa: BLE001 - one bad page must not sink its document
                row.setdefault("text_layer", "")
                row.setdefault("text_layer_trusted", False)
                row.setdefault("image_covered", False)
                row["render_error"] = f"{type(exc).__name__}: {exc}"
            yield row
    finally:
        doc.close()


def document_pages(
    kind: str, path: str, target_dim: int, on_page: Callable[[int], None] | None = None
) -> Iterator[dict[str, Any]]:
    """Page rows of one input, rendered in this process (the sandbox runs this in its child); `on_page` is told
    each page number (1-based) before the page is read, in each of the two passes."""
    return _image_pages(path, target_dim, on_page) if kind == "image" else _pdf_pages(path, target_dim, on_page)


def _image_pages(path: str, target_dim: int, on_page: Callable[[int], None] | None) -> Iterator[dict[str, Any]]:
    if on_page is not None:
        on_page(1)
    rendered = image_to_page(path, target_dim)
    yield from [
        {
            "page_num": 1,
            "png": rendered.png,
            "width": rendered.width,
            "height": rendered.height,
            "text_layer": "",
            "text_layer_trusted": False,
            "render_error": None,
            "image_covered": True,
            "render_note": None,
        }
    ]
