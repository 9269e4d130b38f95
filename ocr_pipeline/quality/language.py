"""Language: a page's `primary_language` against its document's majority.

Both engines already name a page's language (the VLM's front matter, the CPU engine's detector), so nothing is
detected here: a page answered in another language than the rest of its document stands out by comparison.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


def majority_language(languages: Iterable[str | None]) -> str | None:
    """The most common language among the pages that have one (ties: alphabetical), None when none has."""
    counts = Counter(lang for lang in languages if lang)
    if not counts:
        return None
    best = max(counts.values())
    return min(lang for lang, n in counts.items() if n == best)


def language_mismatch(page_language: str | None, document_language: str | None, named_pages: int) -> bool | None:
    """Whether the page's language differs from its document's; None when there is nothing to compare.

    A document needs two pages with a language for a majority to mean anything; a page without a language
    (an empty page, a fallback) is not compared.
    """
    if not page_language or not document_language or named_pages < 2:
        return None
    return page_language != document_language
