"""Per-page quality signals of an OCR answer: pure functions over text and numbers (no Dagster, no I/O).

One concern per module: repetition loops, truncation, language against the document, wrong language against the
trusted text layer, agreement with the text layer, density on the page; `signals` puts them together,
`attributes` turns them into Dolma spans, and `degenerate` is the verdict the VLM engine retries a page on.
"""

from ocr_pipeline.quality.attributes import QUALITY_ATTRIBUTES, quality_attributes
from ocr_pipeline.quality.signals import PageFacts, add_document_language, page_signals

__all__ = ["QUALITY_ATTRIBUTES", "PageFacts", "add_document_language", "page_signals", "quality_attributes"]
