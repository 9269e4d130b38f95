"""Mirrored text is not print: near-blank backs whose bleed-through is as dark as faint print (mirrored sharp and
blurred, grey on grey, with specks, with a stamp) pass the print measure alone, and the VLM engine's judgement
(AnswerJudge, reading their lines with the CPU engine's recogniser) flags a page of invented prose on every one;
honest answers on them, faint print at the same depths answered with its own words, and the real old scans'
transcriptions pass."""

from __future__ import annotations

import asyncio
import functools

import pypdfium2 as pdfium
import pytest

from ocr_pipeline.engines.vlm.answer_judge import AnswerJudge
from ocr_pipeline.pdf.render import render_pdf_page
from ocr_pipeline.quality import PageFacts, page_signals
from ocr_pipeline.quality.degenerate import INVENTED_TEXT
from ocr_pipeline.quality.print_ink import invented_text, page_ink
from ocr_pipeline.records import PageInput, PageResult
from tests.support.builders import near_blank
from tests.support.pages import rendered_scan
from tests.support.shared_data import HISTORY
from tests.support.vlm_answers import INVENTED_PAGE

BACKS = list(near_blank.BACKS)
HONEST = ("", "RECEIVED\n\nMAR 12 1911")  # nothing, or the stamp's own words
FAINT = {"depth 90": (90, near_blank.PAPER), "depth 150": (150, near_blank.PAPER),
         "depth 210": (210, near_blank.PAPER), "grey paper": (90, 170)}  # fmt: skip


@functools.cache
def _back(name: str) -> bytes:
    return rendered_scan(near_blank.near_blank_back(name))


def _judged(png: bytes, *answers: str) -> AnswerJudge:
    """The engine's judge of one page without a text layer, after it judged each answer in turn."""
    judge = AnswerJudge(PageInput("h", 1, png))
    for answer in answers:
        asyncio.run(judge.reason(answer, "stop"))
    return judge


@pytest.mark.parametrize("name", BACKS)
def test_the_print_measure_alone_lets_invented_prose_pass(name: str) -> None:
    ink = page_ink(_back(name))
    assert ink.ink_pixels > 24  # not blank: the shortcut sends it to the model
    assert invented_text(INVENTED_PAGE, ink.capacity) is None  # the gap: the bleed-through counts as print


@pytest.mark.parametrize("name", BACKS)
def test_the_engine_flags_invented_prose_and_withholds_it(name: str) -> None:
    judge = _judged(_back(name), INVENTED_PAGE, INVENTED_PAGE)
    assert len(judge.reasons) == 2 and all(r.startswith(INVENTED_TEXT) for r in judge.reasons)
    assert "mirrored lines left out" in judge.reasons[0]
    assert judge.withhold
    # The stored signals cannot read lines: the withheld page (no text, empty layer) stays flagged by the reasons.
    withheld = PageResult("h", 1, "", engine="vlm", extra={"retried_for": judge.reasons, "withheld": judge.reasons[-1]})
    facts = PageFacts(910, 1288, print_capacity=page_ink(_back(name)).capacity)
    assert page_signals(withheld, facts)["invented_text"]


@pytest.mark.parametrize("name", BACKS)
def test_honest_answers_pass(name: str) -> None:
    for answer in HONEST:
        judge = _judged(_back(name), answer)
        assert judge.reasons == [] and judge.mirrored is None  # at most 20 letters: no line is read


@pytest.mark.parametrize("name", list(FAINT))
def test_faint_print_answered_with_its_own_words_passes(name: str) -> None:
    depth, paper = FAINT[name]
    judge = _judged(rendered_scan(near_blank.faint_print(depth, paper=paper)), near_blank.FRONT_PAGE)
    assert judge.reasons == []
    assert judge.mirrored is not None and judge.mirrored.mirrored == []


@pytest.mark.shared_data
def test_the_real_old_scans_transcriptions_pass() -> None:
    humans = sorted((HISTORY / "old_scans" / "human").glob("*.md"))
    flagged = []
    for human in humans:
        doc = pdfium.PdfDocument(str(HISTORY / "old_scans" / "pdfs" / f"{human.name.split('_pg')[0]}.pdf"))
        try:
            png = render_pdf_page(doc, 0).png
        finally:
            doc.close()
        judge = _judged(png, human.read_text(encoding="utf-8"))
        if judge.reasons or (judge.mirrored is not None and judge.mirrored.mirrored):
            flagged.append((human.name, judge.reasons))
    assert len(humans) == 40 and flagged == []
