"""olmOCR-style PDF filters for `--apply_filter`: forms, non-English text, SEO/download spam."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ocr_pipeline.quality.language_detector import best_language

# Machine-readable reasons (written to rejected/<group>.jsonl with stage "filter").
FORM_FIELDS = "form_fields"
NON_ENGLISH = "non_english"
SEO_SPAM = "seo_spam"

# olmOCR's settings: language is judged on the first five pages, below 200 characters or when under
# half of them are letters the text is too thin or too garbled to judge, so the PDF is kept.
LANGUAGE_PAGES = 5
MIN_TEXT_CHARS = 200
MIN_ALPHA_RATIO = 0.5
KEEP_LANGUAGES = frozenset({"en"})
SEO_WORDS = frozenset(
    [
        "download",
        "pdf",
        "epub",
        "mobi",
        "free",
        "ebook",
        "file",
        "save",
        "casino",
        "viagra",
        "cialis",
        "ciprofloxacin",
    ]
)
SEO_SPAM_RATIO = 0.004
# Widgets are found by loading pages; forms put their fields up front, and loading every page of a
# 5000-page book only to look for fields would cost more than the filter is worth.
FORM_SCAN_PAGES = 50
_NON_WORD = re.compile(r"\W+")


@dataclass(frozen=True)
class FilterDecision:
    """Keep or drop one PDF; `reason` is a constant of this module when dropped."""

    keep: bool
    reason: str | None = None
    detail: str = ""


def first_pages_text(doc: pdfium.PdfDocument, pages: int = LANGUAGE_PAGES) -> str:
    """The text layer of the first `pages` pages, joined by newlines."""
    parts = []
    for index in range(min(pages, len(doc))):
        page = doc[index]
        textpage = page.get_textpage()
        try:
            parts.append(textpage.get_text_bounded())
        finally:
            textpage.close()
            page.close()
    return "\n".join(parts)


def has_text_form_fields(doc: pdfium.PdfDocument, max_pages: int = FORM_SCAN_PAGES) -> bool:
    """Whether the PDF has fillable text fields (olmOCR drops forms with text fields, not plain AcroForms)."""
    if doc.get_formtype() == pdfium_c.FORMTYPE_NONE:
        return False
    # Field types are only resolvable through a form environment (fields inherit /FT from parents).
    created = doc.init_forms()
    try:
        for index in range(min(max_pages, len(doc))):
            page = doc[index]
            try:
                for i in range(pdfium_c.FPDFPage_GetAnnotCount(page.raw)):
                    annot = pdfium_c.FPDFPage_GetAnnot(page.raw, i)
                    if not annot:
                        continue
                    try:
                        if pdfium_c.FPDFAnnot_GetSubtype(annot) != pdfium_c.FPDF_ANNOT_WIDGET:
                            continue
                        kind = pdfium_c.FPDFAnnot_GetFormFieldType(doc.formenv.raw, annot)
                        if kind == pdfium_c.FPDF_FORMFIELD_TEXTFIELD:
                            return True
                    finally:
                        pdfium_c.FPDFPage_CloseAnnot(annot)
            finally:
                page.close()
        return False
    finally:
        # Leave the caller's document as it was: a form env changes how its pages render.
        if created:
            doc.close_forms()


def is_seo_spam(text: str, threshold: float = SEO_SPAM_RATIO) -> tuple[bool, float]:
    """olmOCR's download-spam test: share of words from the SEO list above `threshold`."""
    words = _NON_WORD.sub(" ", text.strip().lower()).split()
    if not words:
        return False, 0.0
    counts = Counter(words)
    ratio = sum(counts[w] for w in SEO_WORDS) / len(words)
    return ratio > threshold, ratio


def check_text(text: str) -> FilterDecision:
    """The language and spam checks on the text of the first pages."""
    n_chars = len(text)
    if n_chars < MIN_TEXT_CHARS:
        return FilterDecision(True, None, f"too little text to judge ({n_chars} chars)")
    alpha = sum(c.isalpha() for c in text) / n_chars
    if alpha < MIN_ALPHA_RATIO:
        return FilterDecision(True, None, f"text is {alpha:.0%} letters, maybe a bad text layer")
    lang, prob = best_language(text) or (None, 0.0)
    if lang is not None and lang not in KEEP_LANGUAGES:
        return FilterDecision(False, NON_ENGLISH, f"detected {lang} (p={prob:.2f})")
    spam, ratio = is_seo_spam(text)
    if spam:
        return FilterDecision(False, SEO_SPAM, f"SEO words are {ratio:.2%} of words (> {SEO_SPAM_RATIO:.2%})")
    return FilterDecision(True, None, f"language {lang or 'undetected'}")


def check_pdf(doc: pdfium.PdfDocument, text_of_first_pages: str | None = None) -> FilterDecision:
    """olmOCR's PDF filter: drop forms, non-English and spam; keep whatever cannot be judged."""
    try:
        if has_text_form_fields(doc):
            return FilterDecision(False, FORM_FIELDS, "the PDF has fillable text fields")
        text = first_pages_text(doc) if text_of_first_pages is None else text_of_first_pages
    except Exception as exc:  # noqa: BLE001 - a broken text layer is no reason to drop a PDF the OCR can read
        return FilterDecision(True, None, f"filter could not read the PDF: {type(exc).__name__}: {exc}")
    return check_text(text)
