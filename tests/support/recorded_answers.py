"""Recorded answers for the fake VLM server: a real model's Markdown for real pages, matched by page image.

olmOCR-Bench keeps what olmOCR's pipeline wrote for each page as `<pdf stem>_pg<page>_repeat<n>.md` beside the PDFs
(`../shared/data/olmocr-bench-history/old_scans/olmocr_pipeline/`). Served back through `VlmTestServer(text_for=...)`,
the pipeline meets a real model's answers (its duplicated sentences, HTML tables, LaTeX) instead of the suite's
generated ones. Each page is rendered by the pipeline's own page rows, as the VLM engine sends it, and keyed both ways
the server keys a page (pixel histogram, PNG bytes), so a page the pipeline sends differently from how it renders
misses the map and gets the server's unrelated default words instead of passing unseen.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.settings import DEFAULT_TARGET_LONGEST_IMAGE_DIM
from tests.support.vlm_protocol import bytes_key, page_key


@dataclass(frozen=True)
class RecordedPage:
    """One page a recorded answer belongs to."""

    pdf: Path
    page: int  # 1-based
    answer: str
    keys: tuple[str, str]  # (histogram key, PNG-bytes key) of the page as the pipeline renders it


def recorded_pages(
    pdf_dir: Path, answer_dir: Path, *, longest_side: int = DEFAULT_TARGET_LONGEST_IMAGE_DIM, repeat: int = 1
) -> list[RecordedPage]:
    """Every page of the PDFs in `pdf_dir` that has an answer `<stem>_pg<page>_repeat<repeat>.md` in `answer_dir`."""
    pages: list[RecordedPage] = []
    for pdf in sorted(pdf_dir.glob("*.pdf")):
        answers = {
            page: path
            for page, path in ((_page_of(path, pdf.stem, repeat), path) for path in answer_dir.glob(f"{pdf.stem}_pg*"))
            if page is not None
        }
        if not answers:
            continue
        for row in document_pages("pdf", str(pdf), longest_side):
            path = answers.get(row["page_num"])
            if path is not None and row["png"]:
                keys = (page_key(row["png"]), bytes_key(row["png"]))
                pages.append(RecordedPage(pdf, row["page_num"], path.read_text(encoding="utf-8"), keys))
    return pages


def page_keys(pdf: Path, *, longest_side: int = DEFAULT_TARGET_LONGEST_IMAGE_DIM) -> list[tuple[str, str]]:
    """Both server keys of each page of a PDF, as the pipeline renders it."""
    rows = document_pages("pdf", str(pdf), longest_side)
    return [(page_key(row["png"]), bytes_key(row["png"])) for row in rows if row["png"]]


def recorded_answers(pages: list[RecordedPage]) -> dict[str, str]:
    """The server's `text_for` map: each page's two keys to its recorded answer."""
    return {key: page.answer for page in pages for key in page.keys}


def _page_of(path: Path, stem: str, repeat: int) -> int | None:
    """The page number of `<stem>_pg<page>_repeat<repeat>.md`, None for another file."""
    middle = path.name.removeprefix(f"{stem}_pg").removesuffix(f"_repeat{repeat}.md")
    return int(middle) if middle.isdigit() and path.name != middle else None
