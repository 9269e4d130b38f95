"""Right answers for the fake VLM server: each page image of a corpus, keyed as the server keys it, to its own words.

The suite's server answers a page it has no text for with words unrelated to it (vlm_protocol.default_text), which
is what a wrong model does, and the shipped text-layer agreement gate stops such a partition before dolma_shards.
Tests that are not about the answers' content give the server these instead: the pages are rendered by the
pipeline's own page rows (page_rows.document_pages: the same renderer, size and PNG encoding its page_images step
stores and the VLM engine sends) before the run, and each image's histogram key (rotation-invariant, as the server
computes it) maps to that page's text layer. A page the pipeline sends differently from how it renders misses the
map and gets the unrelated words, so a rendering change still shows up as a blocked gate instead of passing unseen.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.pdf.probe import PdfOpenError
from ocr_pipeline.settings import DEFAULT_TARGET_LONGEST_IMAGE_DIM
from tests.support.vlm_protocol import bytes_key, page_key


def _pdfs(inputs: Iterable[str | Path]) -> list[Path]:
    """The PDFs among the inputs: files as given, folders searched recursively, in a stable order."""
    found: list[Path] = []
    for item in map(Path, inputs):
        found.extend(sorted(item.rglob("*.pdf")) if item.is_dir() else [item])
    return found


def right_answers(
    *inputs: str | Path, longest_side: int = DEFAULT_TARGET_LONGEST_IMAGE_DIM, key_by_bytes: bool = False
) -> dict[str, str]:
    """Server page key to the page's text layer, whitespace collapsed, for each page of the PDFs that has one."""
    # key_by_bytes: keyed as a server started with key_by_histogram=False (--key-by-bytes) keys its pages.
    key = bytes_key if key_by_bytes else page_key
    answers: dict[str, str] = {}
    for pdf in _pdfs(inputs):
        try:
            rows = list(document_pages("pdf", str(pdf), longest_side))
        except PdfOpenError:  # an input the pipeline rejects (not a PDF, broken): it sends no page
            continue
        for row in rows:
            words = " ".join((row["text_layer"] or "").split())
            # Scans and failed renders have no words to read back: the server's default answer stays theirs
            # (the gate does not judge pages without a trusted layer).
            if row["png"] and words:
                answers[key(row["png"])] = words
    return answers


def right_answers_of(documents: Mapping[str, bytes]) -> dict[str, str]:
    """right_answers of a corpus held in memory (file name to bytes), e.g. one uploaded to S3."""
    with tempfile.TemporaryDirectory(prefix="oracle-") as folder:
        for name, data in documents.items():
            (Path(folder) / Path(name).name).write_bytes(data)
        return right_answers(folder)
