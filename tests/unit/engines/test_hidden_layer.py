"""A hidden OCR layer over a scan is checked against the engine's own reading of a sample of lines."""

from __future__ import annotations

import pytest

from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.engines.cpu.layer_check import judge_layer, sample_indices, words_of
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.records import PageInput
from tests.support.builders import layout_pdfs, pdfgen

PARAGRAPHS = [" ".join(pdfgen.SENTENCES)] * 3


@pytest.fixture(scope="module")
def engine() -> CpuEngine:
    return CpuEngine(threads=1)


def _page(tmp_path, pdf: bytes) -> PageInput:
    path = pdfgen.write(tmp_path / "scan.pdf", pdf)
    row = next(iter(document_pages("pdf", str(path), 1288)))
    return PageInput(
        "s",
        1,
        row["png"],
        row["width"],
        row["height"],
        row["text_layer"],
        row["text_layer_trusted"],
        image_covered=row["image_covered"],
    )


def test_plausible_wrong_layer_is_replaced_by_ocr(tmp_path, engine: CpuEngine) -> None:
    page = _page(tmp_path, layout_pdfs.hidden_layer_scan_pdf(PARAGRAPHS, wrong_every=3))
    # The premise: real words in a real letter mix pass every check of the layer alone.
    assert page.text_layer_trusted and page.image_covered
    assert "market" in page.text_layer and "wizards" not in page.text_layer.split()[:12]
    result = engine.ocr_page(page)
    assert result.extra["source"] == "ocr"
    assert result.extra["layer_check"]["replaced"] is True
    assert result.extra["layer_check"]["agreement"] < 0.8
    text = result.text.lower()
    for word in ("wizards", "journey", "committee", "harvested", "engineers"):
        assert word in text
    assert "market" not in text and "silver" not in text


def test_good_layer_over_a_scan_is_kept(tmp_path, engine: CpuEngine) -> None:
    page = _page(tmp_path, layout_pdfs.hidden_layer_scan_pdf(PARAGRAPHS))
    assert page.text_layer_trusted and page.image_covered
    result = engine.ocr_page(page)
    assert result.extra["source"] == "text_layer" and result.text == page.text_layer
    assert result.extra["layer_check"]["replaced"] is False
    assert result.extra["layer_check"]["agreement"] >= 0.9


def test_born_digital_pages_are_not_checked(tmp_path, engine: CpuEngine) -> None:
    page = _page(tmp_path, pdfgen.text_pdf([pdfgen.SENTENCES]))
    assert page.text_layer_trusted and not page.image_covered
    assert "layer_check" not in engine.ocr_page(page).extra


def test_judge_needs_enough_confident_words() -> None:
    layer = "the quick brown fox jumps over the lazy dog"
    assert judge_layer(layer, [("the quick brown fox", 0.99)]).agreement is None  # too few words to judge
    many = [("seven wizards quietly packed their boxes", 0.99)] * 4
    assert judge_layer(layer, many).replace
    assert not judge_layer(layer, [(t, 0.5) for t, _ in many]).replace  # unsure readings are no evidence
    assert not judge_layer(layer, [(layer, 0.95)] * 3).replace


def test_sample_spreads_over_the_page_and_words_ignore_case_and_marks() -> None:
    assert sample_indices(5, 12) == [0, 1, 2, 3, 4]
    picked = sample_indices(100, 12)
    assert picked[0] == 0 and picked[-1] == 99 and len(picked) == 12
    assert words_of("Mina\u0301c\u030c, a THE-end") == ["mináč", "the", "end"]
