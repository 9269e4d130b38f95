"""One input's page rows: each page rendered to a PNG beside its text layer and a verdict on that layer.

A row's text layer is of one of two kinds. The full layout (`LAYOUT`: repaired glyphs, columns, furniture with the
document's running heads, formulas, tables) is what the CPU engine answers with and what a page that falls back
stores. The plain text (`PLAIN`: pdfium's text of the page, cleaned) is all the VLM path needs of a page that the
model reads: the agreement signal, the blank-page check, the language reference and the trust verdict; it costs
a millisecond where the layout costs tens. A page that falls back gets its layout later (`pages` and
`images=False`: the layout of a few pages of one document, the running-head pass over all of them included).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from functools import partial
from typing import Any

import pyarrow as pa

from ocr_pipeline.layout.band_lines import band_signatures
from ocr_pipeline.layout.budget import LayoutBudget, join_notes
from ocr_pipeline.layout.model_regions import Regions
from ocr_pipeline.layout.page_reader import PageRead
from ocr_pipeline.pdf.crop_box import repair_crop_box
from ocr_pipeline.pdf.page_regions import furniture_regions
from ocr_pipeline.pdf.probe import open_pdf
from ocr_pipeline.pdf.render import image_to_page, render_pdf_page
from ocr_pipeline.pdf.route_evidence import invisible_chars, reading_evidence
from ocr_pipeline.records import TEXT_LAYOUT, TEXT_PLAIN, TEXT_ROUTE
from ocr_pipeline.settings import MAX_PAGE_PIXELS
from ocr_pipeline.textlayer.reader import (
    PageLayout,
    assess_text_layer,
    image_coverage,
    layout_read,
    page_layout,
    plain_text,
    write_scripts,
)
from ocr_pipeline.textlayer.reading_params import READING_PARAMS, ReadingParams

# The two kinds of text layer a row can carry (its `text_layer_kind`; see records), and ROUTE: the full layout with
# each page's routing evidence (`route_evidence`).
LAYOUT, PLAIN, ROUTE = TEXT_LAYOUT, TEXT_PLAIN, TEXT_ROUTE
TEXT_KINDS = (LAYOUT, PLAIN, ROUTE)

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
        # LAYOUT or PLAIN: what text_layer holds (see the module's docstring).
        ("text_layer_kind", pa.string()),
        # The page's routing evidence (routing.RouteEvidence as JSON) when read for `route auto`; null otherwise.
        ("route_evidence", pa.string()),
    ]
)


# Layouts holding this many text runs and ruling lines in all (about 60 MB) are kept between the two passes; the
# pages past them are read twice. Counted in boxes, not pages: one page may hold 30,000 runs or 12,000 rules.
MAX_CACHED_BOXES = 200_000


def _repeated_lines(
    doc: Any,
    cache: dict[int, PageLayout],
    notes: dict[int, str],
    keep: Collection[int] | None = None,
    on_page: Callable[[int], None] | None = None,
    params: ReadingParams = READING_PARAMS,
    max_cached: int = MAX_CACHED_BOXES,
) -> tuple[set[str], frozenset[str] | None]:
    """Signatures of lines that recur in the top or bottom band of the document's pages: those on the furniture's
    repeat_share of them (running heads, whatever else a page shows), and those on two pages at least (None for a
    one-page document: there, nothing can recur).

    Layouts of the pages in `keep` (every page when None) are cached for the second pass, up to `max_cached` runs
    and rules in all; `on_page` is told each page number before the page is read.
    """
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
                if note := repair_crop_box(page, doc, index):
                    notes[index] = note
                layout = page_layout(page, params=params)
            finally:
                page.close()
        except MemoryError:
            raise  # the document's, not the page's: the sandbox rejects it as memory_exceeded
        except Exception:  # noqa: BLE001 - the page fails again, with its reason, in the second pass
            continue
        size = len(layout.runs) + len(layout.rules)
        if (keep is None or index in keep) and cached + size <= max_cached:
            cache[index] = layout
            cached += size
        for sig in band_signatures(layout.runs, layout.height, params.layout):
            counts[sig] = counts.get(sig, 0) + 1
    recurring = frozenset(sig for sig, k in counts.items() if k >= 2) if n > 1 else None
    share = params.layout.furniture.repeat_share
    return {sig for sig, k in counts.items() if k >= max(2, share * n)}, recurring


class _LayoutReader:
    """The full layout of each page, with the running heads found over the whole document first."""

    kind = LAYOUT

    def __init__(
        self,
        doc: Any,
        wanted: Collection[int] | None,
        on_page: Callable[[int], None] | None,
        params: ReadingParams,
    ) -> None:
        self.cache: dict[int, PageLayout] = {}
        self.notes: dict[int, str] = {}
        self.params = params
        # The last page's layout and reading, which routing's evidence is gathered from (route_evidence.py).
        self.last: tuple[PageLayout, PageRead] | None = None
        self.repeated, self.recurring = _repeated_lines(doc, self.cache, self.notes, wanted, on_page, params)

    def note(self, index: int) -> str | None:
        """The repair the first pass made on this page, if any."""
        return self.notes.pop(index, None)

    def text(self, page: Any, index: int, drawn: Any = None) -> tuple[str, str, list[str]]:
        """(text as stored, text as judged, the layout bounds that fired): scripts stay marked for the verdict
        (see layout_text). `drawn`: the page's rendered pixels, if the row has them."""
        layout = self.cache.pop(index, None) or page_layout(page, params=self.params)
        budget = LayoutBudget()
        # The layout model's headers and footers join the furniture rules (a page without text needs none, and none
        # is asked for with the model switched off); asked for only when a line the rules left could go by them
        # (layout/model_regions.py).
        asked = bool(layout.runs) and self.params.layout_model
        regions: Regions = partial(furniture_regions, page, layout.shown_frame, drawn) if asked else []
        marked, read = layout_read(layout, self.repeated, True, budget, regions, self.recurring, self.params)
        self.last = (layout, read)
        return write_scripts(marked), marked, layout.notes + budget.notes


class _PlainReader:
    """pdfium's own text of each page, no layout: one pass, nothing kept between pages."""

    kind = PLAIN

    def note(self, index: int) -> str | None:
        """Plain pages are read in one pass: nothing was repaired before."""
        return None

    def text(self, page: Any, index: int, drawn: Any = None) -> tuple[str, str, list[str]]:
        """(text as stored, text as judged, no bounds: pdfium's text has no layout): the same words."""
        text = plain_text(page)
        return text, text, []


def _pdf_pages(
    path: str,
    target_dim: int,
    text: str,
    pages: Collection[int] | None,
    images: bool,
    on_page: Callable[[int], None] | None,
    params: ReadingParams,
) -> Iterator[dict[str, Any]]:
    """Pages one at a time, so a long document never sits in memory as images."""
    if text not in TEXT_KINDS:
        raise ValueError(f"unknown text layer kind {text!r}")
    doc = open_pdf(path)
    try:
        wanted = None if pages is None else {p - 1 for p in pages if 1 <= p <= len(doc)}
        reader = _LayoutReader(doc, wanted, on_page, params) if text in (LAYOUT, ROUTE) else _PlainReader()
        for index in range(len(doc)) if wanted is None else sorted(wanted):
            if on_page is not None:
                on_page(index + 1)
            row: dict[str, Any] = {"page_num": index + 1, "png": None, "width": 0, "height": 0, "render_note": None}
            row.update(render_error=None, text_layer_kind=reader.kind, route_evidence=None)
            try:
                # Rendered first, when an image is wanted, so the layout model reads the same pixels (a laid-out
                # page's only use of them); a page that will not render still gets its text read, then fails.
                rendered, unrendered = None, None
                if images:
                    try:
                        keep = reader.kind == LAYOUT
                        rendered = render_pdf_page(doc, index, target_dim, MAX_PAGE_PIXELS, keep_pixels=keep)
                    except MemoryError:
                        raise
                    except Exception as exc:  # noqa: BLE001 - raised again below, once the text is read
                        unrendered = exc
                page = doc[index]
                try:
                    # The render repairs a CropBox that loses the page in the document (crop_box.py) and says so.
                    drawn_note = rendered.note if rendered is not None else None
                    repaired = drawn_note or repair_crop_box(page, doc, index) or reader.note(index)
                    stored, judged, bounds = reader.text(page, index, rendered.pixels if rendered else None)
                    row["render_note"] = join_notes(repaired, bounds)
                    width_pt, height_pt = page.get_size()
                    covered = image_coverage(page)
                    invisible = invisible_chars(page) if text == ROUTE else 0
                finally:
                    page.close()
                quality = assess_text_layer(judged, width_pt * height_pt, covered, params)
                if text == ROUTE and isinstance(reader, _LayoutReader) and reader.last is not None:
                    pixels = rendered.pixels if rendered is not None else None
                    evidence = reading_evidence(*reader.last, stored, quality, covered, invisible, pixels, bounds)
                    row["route_evidence"] = evidence.to_json()
                row.update(
                    text_layer=stored,
                    text_layer_trusted=quality.trusted,
                    image_covered=covered >= params.text_layer.min_scan_image_share,
                )
                if unrendered is not None:
                    raise unrendered
                if rendered is not None:
                    row.update(png=rendered.png, width=rendered.width, height=rendered.height)
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
    kind: str,
    path: str,
    target_dim: int,
    *,
    text: str = LAYOUT,
    pages: Collection[int] | None = None,
    images: bool = True,
    on_page: Callable[[int], None] | None = None,
    params: ReadingParams = READING_PARAMS,
) -> Iterator[dict[str, Any]]:
    """Page rows of one input, rendered in this process (the sandbox runs this in its child).

    `text` is the kind of text layer (LAYOUT or PLAIN); `pages` (1-based) limits the rows to those pages, in
    order; `images=False` reads the text layer only (no PNG). `on_page` is told each page number before the page
    is read, in each pass (the sandbox's child marks it, to name the page should it run out of memory there).
    `params` holds every threshold and switch the text layer is read and judged with (its documented defaults).
    """
    if kind == "image":
        return _image_pages(path, target_dim, on_page) if pages is None or 1 in pages else iter(())
    return _pdf_pages(path, target_dim, text, pages, images, on_page, params)


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
            # An image has no text layer to lay out: its row is final whatever kind was asked for.
            "text_layer_kind": LAYOUT,
            "route_evidence": None,
        }
    ]
