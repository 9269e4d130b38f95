"""Text shapes of page furniture: page numbers, running-head marks, journal and download notices.

Shapes only, no words of any one document: how publishers number pages ("17", "xiv", "-3-", "Page 3 of 9",
"155414-6"), how running heads cite a paper ("et al.", "Vol. 36, No. 3", "(2004)"), and what download and
journal footers carry (URLs, e-mail addresses, ISSN/DOI, dates, copyright and licence notes).
"""

from __future__ import annotations

import re

_ROMAN = r"(?=[ivxlcdm]+\b)m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
# A box that is a page number and nothing else: "17", "- 3 -", "[iv]", "Page 3 of 9", "S12", "155414-6", "3/9";
# not "4.00" (a table cell).
PAGE_NUMBER = re.compile(
    r"^[\W_]*(?:(?:page|p\.|pg\.?|pp\.|seite|s\.|página|pág\.?|pag\.?|side|strona|str\.)\s*)?"
    rf"(?:[a-z]?\d{{1,4}}|{_ROMAN}|\d{{1,7}}[-–]\d{{1,4}})"
    r"(?:\s*(?:of|/|de|von|van|sur|из)\s*\d{1,4})?[\W_]*$",
    re.IGNORECASE,
)
# A number at either end of a line, as in "400 BRITISH HUSBANDRY." or "Annual report 17"; not "3.5", "1,200", a
# list's "7. Award" or "2)", a time "17:15", nor a superscript written "^{2}".
EDGE_NUMBER = re.compile(r"^\W*\d{1,4}\b(?![.,)]|:\d)|\b(?<![.,{])\d{1,4}\W*$")
# Notices that are furniture wherever they sit in a band when they are also set small or apart (the old list).
NOTICE = re.compile(
    r"download(?:ed)?\b|retrieved\b|accessed\b|all rights reserved|©|\(c\)\s*\d{4}|copyright|\brevision\b|"
    r"\bdoi:|https?://|www\.|licen[cs]e|printed in|for personal use|preprint|journal of|vol\.\s*\d|proceedings",
    re.IGNORECASE,
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
# Marks of a line set apart in a band: what a running head, a journal masthead or a footer carries.
BAND_MARK = re.compile(
    r"\bpage\s*\d{1,4}\s*(?:of|/)\s*\d{1,4}\b"  # Page 3 of 9
    r"|\bet\s+al\.?"  # an authors' running head
    r"|\b(?:issn|isbn|e-?issn|doi|pmid|arxiv)\b"
    r"|terms\s+(?:of|and)\s+(?:use|conditions)"
    r"|\b(?:vol|volume|no|issue|number|nr|bd|jg)\.?\s*\d{1,4}\b"
    r"|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # e-mail
    r"|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|edu|gov|int|info|ac\.[a-z]{2}|co\.[a-z]{2}|[a-z]{2})/\S*"  # a URL
    r"|\b(?:[\w-]+\.)+(?:com|org|net|edu|gov|int|info)\b"  # a domain
    r"|\b\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})\b"  # 05/28/09, 28.08.12
    rf"|\b{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}\b|\b\d{{1,2}}\.?\s+{_MONTH}\s+\d{{4}}\b"  # June 17, 2016; 9 Mar 2018
    r"|\(\d{4}\)\s*[\d:;,–-]*\s*$"  # "PHYSICAL REVIEW B 70, 155414 (2004)", "(2018) 16:25"
    r"|\b\d{1,4}\s*[-–]\s*\d{1,4}\s*$",  # a page range at the end: "Summer 2018; 95-98"
    re.IGNORECASE,
)


def is_page_number(text: str) -> bool:
    """Whether `text` (one box or line) is a page number and nothing else."""
    text = text.strip()
    # A number closing a sentence ("... 1979. | 1992.") is a year or a count, not a page number.
    return bool(PAGE_NUMBER.match(text)) and any(c.isalnum() for c in text) and not text.endswith((".", ","))


def has_band_mark(text: str) -> bool:
    """Whether a line carries a running-head, masthead or footer mark (see BAND_MARK, NOTICE)."""
    return bool(BAND_MARK.search(text) or NOTICE.search(text))
