"""check_pdf: olmOCR's form, language and SEO-spam filters on generated PDFs."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest

from ocr_pipeline.pdf import filters
from ocr_pipeline.pdf.filters import check_pdf, check_text, is_seo_spam
from ocr_pipeline.pdf.render import render_pdf_page
from tests.support.builders.pdfgen import SENTENCES, form_pdf, text_pdf

FRENCH = [
    "Le comité a approuvé le budget annuel après un long débat au conseil municipal.",
    "Les agriculteurs ont récolté le blé et l'orge pendant les chaudes semaines d'automne.",
    "Les enfants ont joué au football dans le parc jusqu'au coucher du soleil.",
    "Une lumière vive du matin remplissait la petite cuisine avant le petit déjeuner.",
]
GERMAN = [
    "Der Ausschuss hat den Jahreshaushalt nach einer langen Debatte im Stadtrat genehmigt.",
    "Die Bauern ernteten Weizen und Gerste während der warmen Herbstwochen auf dem Land.",
    "Die Kinder spielten im Park Fußball, bis die Sonne hinter den Hügeln unterging.",
    "Helles Morgenlicht füllte die kleine Küche, bevor alle zum Frühstück kamen.",
]


def _check(pdf: bytes) -> filters.FilterDecision:
    doc = pdfium.PdfDocument(pdf)
    try:
        return check_pdf(doc)
    finally:
        doc.close()


def test_english_kept() -> None:
    decision = _check(text_pdf([SENTENCES, SENTENCES]))
    assert decision.keep and decision.reason is None


@pytest.mark.parametrize("paragraphs", [FRENCH, GERMAN], ids=["fr", "de"])
def test_non_english_rejected(paragraphs: list[str]) -> None:
    decision = _check(text_pdf([paragraphs, paragraphs]))
    assert (decision.keep, decision.reason) == (False, filters.NON_ENGLISH)


def test_form_rejected_and_document_still_renders() -> None:
    doc = pdfium.PdfDocument(form_pdf())
    try:
        decision = check_pdf(doc)
        assert (decision.keep, decision.reason) == (False, filters.FORM_FIELDS)
        assert doc.formenv is None  # the form env made for the check is closed again
        assert render_pdf_page(doc, 0).width > 0
    finally:
        doc.close()


def test_spam_rejected() -> None:
    spam = "Download the free PDF ebook here and save the file for later reading."
    decision = _check(text_pdf([SENTENCES + [spam]]))
    assert (decision.keep, decision.reason) == (False, filters.SEO_SPAM)


def test_tiny_text_kept() -> None:
    decision = _check(text_pdf([["Bonjour tout le monde."]]))
    assert decision.keep and "too little text" in decision.detail


def test_no_text_layer_kept() -> None:
    assert check_text("").keep
    assert check_text("1234 5678 90 -- ## " * 20).keep  # mostly digits: a bad text layer is not judged


def test_given_text_is_used_instead_of_text_layer() -> None:
    doc = pdfium.PdfDocument(text_pdf([SENTENCES]))
    try:
        assert check_pdf(doc, " ".join(GERMAN)).reason == filters.NON_ENGLISH
    finally:
        doc.close()


def test_deterministic_language() -> None:
    text = " ".join(FRENCH + SENTENCES[:2])
    assert len({check_text(text) for _ in range(5)}) == 1


def test_seo_ratio_threshold() -> None:
    words = ["word"] * 999
    assert is_seo_spam(" ".join(words + ["pdf"]))[0] is False  # 0.001
    assert is_seo_spam(" ".join(words + ["pdf"] * 5))[0] is True  # ~0.005
