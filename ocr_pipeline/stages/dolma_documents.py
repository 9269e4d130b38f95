"""Dolma documents from page results: olmOCR's field layout, with an id stable per source document."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ocr_pipeline.quality import quality_attributes
from ocr_pipeline.records import PageResult
from ocr_pipeline.settings import PIPELINE_VERSION

DOLMA_SOURCE = "ocr-pipeline"
FALLBACK_ATTRIBUTE = "ocr_pipeline__quality__fallback"
ROUTE_ATTRIBUTE = "ocr_pipeline__route__text_layer"
# A page result's `extra.route` when `route auto` read it from its text layer (routing.decide.TEXT_LAYER).
ROUTED = "text_layer"


def document_id(source: str) -> str:
    """The document id: a digest of the source URI, so a rerun replaces the document instead of adding one."""
    return hashlib.sha1(source.encode("utf-8")).hexdigest()


def build_document(
    source: str,
    pages: list[PageResult],
    *,
    added: str,
    total_pages: int,
    quality: Mapping[int, Mapping[str, Any] | None] | None = None,
) -> dict[str, Any]:
    """One Dolma document: page texts joined by newlines, spans [start, end, page] covering the text.

    `quality` (page number -> the OCR manifest's quality signals) adds `ocr_pipeline__quality__*` attributes
    over the same spans; every other field is the same with or without it.
    """
    pages = sorted(pages, key=lambda p: p.page_num)
    text_parts: list[str] = []
    spans: list[list[int]] = []
    position = 0
    for index, page in enumerate(pages):
        content = (page.text or "") + ("\n" if index < len(pages) - 1 else "")
        text_parts.append(content)
        spans.append([position, position + len(content), page.page_num])
        position += len(content)
    engines = sorted({p.engine for p in pages if p.engine})
    models = sorted({p.model for p in pages if p.model})
    return {
        "id": document_id(source),
        "text": "".join(text_parts),
        "source": DOLMA_SOURCE,
        "added": added,
        "created": added,
        "metadata": {
            "Source-File": source,
            "pdf-total-pages": total_pages,
            "total-input-tokens": sum(p.input_tokens for p in pages),
            "total-output-tokens": sum(p.output_tokens for p in pages),
            "total-fallback-pages": sum(1 for p in pages if p.is_fallback),
            # Pages `route auto` read from their text layer instead of sending them to the model.
            "total-routed-pages": sum(1 for p in pages if _routed(p)),
            "engine": ",".join(engines),
            "model": ",".join(models),
            "ocr-pipeline-version": PIPELINE_VERSION,
        },
        "attributes": {
            "pdf_page_numbers": spans,
            "primary_language": [p.primary_language for p in pages],
            "is_rotation_valid": [p.is_rotation_valid for p in pages],
            "rotation_correction": [p.rotation_correction for p in pages],
            "is_table": [p.is_table for p in pages],
            "is_diagram": [p.is_diagram for p in pages],
            # A contract (docs/design.md): 1 where the page was read from its text layer by routing, 0 where not.
            ROUTE_ATTRIBUTE: [[s, e, int(_routed(p))] for (s, e, _), p in zip(spans, pages, strict=True)],
            **_quality(spans, pages, quality or {}),
        },
    }


def _routed(page: PageResult) -> bool:
    """Whether `route auto` read the page from its text layer."""
    return page.extra.get("route") == ROUTED


def _quality(
    spans: list[list[int]], pages: list[PageResult], quality: Mapping[int, Mapping[str, Any] | None]
) -> dict[str, list[list[float | int]]]:
    """The quality attributes, with the pages the engine failed on every attempt marked among them.

    Their text is the PDF's layer, or nothing; a document kept with one such page says which (`total-fallback-pages`
    only counts them). Documents without quality signals get neither, as before the signals existed.
    """
    attributes = quality_attributes(spans, quality)
    if attributes:
        attributes[FALLBACK_ATTRIBUTE] = [[s, e, int(p.is_fallback)] for (s, e, _), p in zip(spans, pages, strict=True)]
    return attributes


def document_markdown(document: dict[str, Any]) -> str:
    """The Markdown file written for a document with --markdown: its text, page breaks kept as blank lines."""
    text: str = document["text"]
    parts = [text[start:end].rstrip("\n") for start, end, _ in document["attributes"]["pdf_page_numbers"]]
    return "\n\n".join(parts).strip() + "\n"
