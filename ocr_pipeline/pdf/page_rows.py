"""One input's page rows: each page rendered to a PNG beside its text layer and a verdict on that layer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from ocr_pipeline.pdf.probe import open_pdf
from ocr_pipeline.pdf.render import image_to_page, render_pdf_page
from ocr_pipeline.pdf.text_layer import assess_text_layer, extract_page_text, image_coverage
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
    ]
)


def _pdf_pages(path: str, target_dim: int) -> Iterator[dict[str, Any]]:
    """Pages one at a time, so a long document never sits in memory as images."""
    doc = open_pdf(path)
    try:
        for index in range(len(doc)):
            row: dict[str, Any] = {"page_num": index + 1, "png": None, "width": 0, "height": 0}
            try:
                page = doc[index]
                try:
                    text = extract_page_text(page)
                    width_pt, height_pt = page.get_size()
                    images = image_coverage(page)
                finally:
                    page.close()
                quality = assess_text_layer(text, width_pt * height_pt, images)
                row.update(text_layer=text, text_layer_trusted=quality.trusted)
                rendered = render_pdf_page(doc, index, target_dim, MAX_PAGE_PIXELS)
                row.update(png=rendered.png, width=rendered.width, height=rendered.height, render_error=None)
            except Exception as exc:  # noqa: BLE001 - one bad page must not sink its document
                row.setdefault("text_layer", "")
                row.setdefault("text_layer_trusted", False)
                row["render_error"] = f"{type(exc).__name__}: {exc}"
            yield row
    finally:
        doc.close()


def document_pages(kind: str, path: str, target_dim: int) -> Iterator[dict[str, Any]]:
    """Page rows of one input, rendered in this process (the sandbox runs this in its child)."""
    return _image_pages(path, target_dim) if kind == "image" else _pdf_pages(path, target_dim)


def _image_pages(path: str, target_dim: int) -> Iterator[dict[str, Any]]:
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
        }
    ]
