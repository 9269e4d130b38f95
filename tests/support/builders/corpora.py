"""Corpora whose PDFs have different page counts (1 page up to 100+), plus one input that must be rejected.

A corpus of equal page counts hides every bug where a sampled page-count estimate is read as a fact: the
estimate is then always right. Every test through the S3 path, the sensor or `dagster job execute` uses one
of these instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.support.builders import pdfgen

# Page counts of the default mix: a one-pager, a short report, and a long document past 100 pages.
DEFAULT_PAGE_COUNTS = (1, 4, 120)
# Not a PDF at all: the rejected input every corpus carries (ends in rejected/ as corrupt_pdf or similar).
REJECTED_NAME = "broken.pdf"
REJECTED_BODY = b"%PDF-1.4 truncated"


def numbered_pdf(name: str, pages: int) -> bytes:
    """A born-digital PDF of `pages` pages, each with one short line naming the document and the page."""
    lines = [[f"{name} page {n} of {pages}.", pdfgen.SENTENCES[n % len(pdfgen.SENTENCES)]] for n in range(1, pages + 1)]
    return pdfgen.text_pdf(lines, font_size=12)


def mixed_pdfs(page_counts: Sequence[int] = DEFAULT_PAGE_COUNTS, *, rejected: bool = True) -> dict[str, bytes]:
    """File name → bytes: one born-digital PDF per page count, plus the rejected input."""
    corpus = {f"doc{i:02d}_{n}p.pdf": numbered_pdf(f"doc{i:02d}", n) for i, n in enumerate(page_counts)}
    if rejected:
        corpus[REJECTED_NAME] = REJECTED_BODY
    return corpus


def upload(client: Any, bucket: str, prefix: str, corpus: dict[str, bytes]) -> list[str]:
    """Put every file of `corpus` under `s3://bucket/prefix`; returns their s3:// URIs in name order."""
    uris = []
    for name, body in sorted(corpus.items()):
        client.put_object(Bucket=bucket, Key=f"{prefix}{name}", Body=body)
        uris.append(f"s3://{bucket}/{prefix}{name}")
    return uris


def total_pages(corpus: dict[str, bytes]) -> int:
    """Pages of the good PDFs of a corpus built by `mixed_pdfs` (read from their names)."""
    return sum(int(name.rsplit("_", 1)[1][:-5]) for name in corpus if name != REJECTED_NAME)
