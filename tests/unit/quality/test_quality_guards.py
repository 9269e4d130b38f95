"""Loops judged by length and duplicated paragraphs: the failures real VLMs show that a share of the page misses,
caught on built answers, while honest real pages (ground truth, human transcriptions, text layers) are not."""

from __future__ import annotations

import random

import pytest

from ocr_pipeline.quality import PageFacts, page_signals, quality_attributes
from ocr_pipeline.quality.attributes import PREFIX
from ocr_pipeline.quality.degenerate import degenerate_reason, failed_answer
from ocr_pipeline.quality.duplicates import DuplicateParams, duplicated_paragraph
from ocr_pipeline.quality.repeats import tokens
from ocr_pipeline.quality.repetition import repetition
from ocr_pipeline.records import PageResult
from tests.support.real_pages import answer_and_reference_pairs, real_page_texts
from tests.support.shared_data import HISTORY
from tests.support.vlm_answers import block_loop, line_loop, repeated_paragraph

PARAGRAPHS = [
    "The committee met on Tuesday to review the budget. Members raised questions about the cost of the new library "
    "wing, and the chair promised a written answer before the next session of the council in the spring.",
    "The treasurer reported that the reserve had grown by four percent over the year, mostly through interest on "
    "the deposits held with the county savings bank, and that no new borrowing would be needed for the roof.",
    "A letter from the parish of Upper Wood asked for help with the bridge over the mill stream, whose piers the "
    "winter floods had loosened; the clerk was told to find out what a survey by the county engineer would cost.",
    "The meeting closed at nine with a vote of thanks to the caretaker, who had kept the hall warm through the "
    "coldest week of the winter and had mended the broken window in the vestry at his own expense without a word.",
]
_WORDS = sorted(set(" ".join(PARAGRAPHS).lower().replace(",", "").replace(";", "").replace(".", "").split()))
_RNG = random.Random(5)
# A long honest page: 100 sentences of 12 words drawn at random, so no 8 words recur in the same order.
PAGE = "\n".join(" ".join(_RNG.choice(_WORDS) for _ in range(12)).capitalize() + "." for _ in range(100))


def test_a_line_looping_at_the_end_of_a_long_page_is_a_loop_whatever_its_share() -> None:
    answer = line_loop(PAGE, copies=60)
    rep = repetition(answer)
    assert rep.share < 0.6 and rep.longest_run >= 300 and rep.degenerate  # the share rule alone missed it
    assert degenerate_reason(answer, "stop") == "repetition loop"
    # Shorter loops, of a line or a block of three lines: a unit copied three times in a row over 80 tokens.
    assert repetition(line_loop(PAGE, copies=12)).degenerate
    assert repetition(block_loop(PAGE, lines=3, copies=15)).degenerate
    assert repetition(block_loop(PAGE, lines=3, copies=3)).degenerate
    assert not repetition(PAGE).degenerate


def test_a_repetition_the_trusted_layer_holds_as_often_is_the_pages_own() -> None:
    rows = "".join(f"<tr><td>Form {i % 2}</td><td>signed by the applicant and the witness</td></tr>" for i in range(40))
    table = f"<table>{rows}</table>"
    layer = "\n".join(f"Form {i % 2} signed by the applicant and the witness" for i in range(40))
    assert repetition(table).degenerate  # without a layer: forty copies of one row
    assert not repetition(table, layer).degenerate  # the page prints them forty times
    assert repetition(table, layer.replace("\n", " ")[:200]).degenerate  # a layer holding it twice does not excuse 40


def test_drawn_punctuation_is_no_loop_but_written_characters_are() -> None:
    assert not repetition(PAGE + "\n" + "-" * 1087 + "\nReferences").degenerate  # a rule across the page
    assert not repetition(PAGE + "\nContents " + "." * 155 + " 3").degenerate  # dot leaders
    assert repetition(PAGE + " " + "ab" * 400).degenerate
    assert repetition(PAGE + " " + "-" * 4000).degenerate


def test_a_paragraph_written_again_at_the_end_is_a_duplicate_on_a_scan() -> None:
    answer = repeated_paragraph("\n\n".join(PARAGRAPHS))
    copy = duplicated_paragraph(tokens(answer))
    assert copy is not None and copy.length >= 35
    assert not repetition(answer).degenerate  # no loop: one extra copy
    assert degenerate_reason(answer, "stop") == f"duplicated paragraph: {copy.length} words written twice"
    # On a scan only the tail tells: the same paragraph written twice in the middle of the answer is not judged.
    middle = "\n\n".join([PARAGRAPHS[0], PARAGRAPHS[1], PARAGRAPHS[1], PARAGRAPHS[2], PARAGRAPHS[3]])
    assert duplicated_paragraph(tokens(middle)) is None
    # Too short for a paragraph, or a table's filler: not judged.
    assert duplicated_paragraph(tokens(PAGE + "\n\nThe committee met on Tuesday to review the budget.")) is None
    assert duplicated_paragraph(tokens(PAGE + " 0" * 40 + " total" + " 0" * 40)) is None


def test_the_trusted_layer_tells_a_duplicate_anywhere_from_an_honest_repeat() -> None:
    middle = "\n\n".join([PARAGRAPHS[0], PARAGRAPHS[1], PARAGRAPHS[1], PARAGRAPHS[2], PARAGRAPHS[3]])
    once = " ".join(PARAGRAPHS)
    assert duplicated_paragraph(tokens(middle), once) is not None  # the page prints it once
    printed_twice = " ".join([PARAGRAPHS[0], PARAGRAPHS[1], PARAGRAPHS[1], PARAGRAPHS[2], PARAGRAPHS[3]])
    assert duplicated_paragraph(tokens(middle), printed_twice) is None  # a notice printed twice on the page
    # A layer without those words at all (another page's layer): the answer is judged as a scan's.
    assert duplicated_paragraph(tokens(middle), "An unrelated layer. " * 20) is None
    assert duplicated_paragraph(tokens(repeated_paragraph(once)), "An unrelated layer. " * 20) is not None


# 23 words: shorter than the scan rule's two sentences, longer than any stretch an honest answer repeats.
SENTENCE = (
    "The chair asked the clerk to write to the county engineer about the survey of the bridge before the next "
    "meeting in spring."
)


def test_against_a_trusted_layer_a_sentence_written_twice_is_a_duplicate_wherever_it_sits() -> None:
    page = "\n\n".join([*PARAGRAPHS, SENTENCE])
    assert len(tokens(SENTENCE).words) == 23
    at_the_end = page + "\n\n" + SENTENCE
    copy = duplicated_paragraph(tokens(at_the_end), page)
    assert copy is not None and copy.length == 23
    assert degenerate_reason(at_the_end, "stop", page) == "duplicated paragraph: 23 words written twice"
    # In the middle, and down to one short sentence of ten words.
    short = "The clerk was told to write to the county engineer."
    with_short = "\n\n".join([PARAGRAPHS[0], short, PARAGRAPHS[1], PARAGRAPHS[2]])
    answer = "\n\n".join([PARAGRAPHS[0], short, PARAGRAPHS[1], short, PARAGRAPHS[2]])
    assert duplicated_paragraph(tokens(answer), with_short) is not None
    # Held as often by the layer (printed twice), or without a layer at all (a scan: the length rule), it stands.
    assert duplicated_paragraph(tokens(at_the_end), page + "\n\n" + SENTENCE) is None
    assert duplicated_paragraph(tokens(at_the_end)) is None
    # A row of table numbers the layer holds once is no sentence: honest answers repeat such rows (11 tokens).
    numbers = "vit large 0 75 1 82 3 70 13 78"
    table = f"{page}\n\n{numbers} base\n\n{numbers} small"
    assert duplicated_paragraph(tokens(table), f"{page} {numbers} base small") is None


def test_duplicate_parameters_are_checked_and_passed_in() -> None:
    answer = "\n\n".join([*PARAGRAPHS, SENTENCE, SENTENCE])
    layer = "\n\n".join([*PARAGRAPHS, SENTENCE])
    assert duplicated_paragraph(tokens(answer), layer, DuplicateParams(min_tokens_with_layer=24)) is None
    with pytest.raises(ValueError, match="at least 8 tokens"):
        DuplicateParams(min_tokens_with_layer=5)


def test_duplicates_and_invented_text_are_flagged_and_counted_like_loops() -> None:
    answer = repeated_paragraph("\n\n".join(PARAGRAPHS))
    signals = page_signals(PageResult("h", 1, answer, engine="vlm"), PageFacts(910, 1288))
    assert signals["duplicate_paragraph"] and not signals["degenerate"] and signals["duplicate_words"] >= 35
    assert failed_answer(signals) == ["duplicate_paragraph"]
    spans = quality_attributes([[0, len(answer), 1]], {1: signals})
    assert spans[PREFIX + "duplicate_paragraph"] == spans[PREFIX + "flagged"] == [[0, len(answer), 1]]
    # A fallback after such answers keeps their verdicts, though its own text (the layer) is clean.
    layer = "\n\n".join(PARAGRAPHS)
    reasons = ["duplicated paragraph: 40 words written twice", "invented text: 1,310 letters, print for about 12"]
    fallback = PageResult("h", 1, layer, is_fallback=True, extra={"retried_for": reasons})
    signals = page_signals(fallback, PageFacts(910, 1288, trusted_text_layer=layer))
    assert signals["duplicate_paragraph"] and signals["invented_text"] and signals["duplicate_words"] == 0
    assert failed_answer(signals) == ["duplicate_paragraph", "invented_text"]


@pytest.mark.shared_data
def test_honest_real_pages_hold_no_loop_and_no_duplicate() -> None:
    pages = real_page_texts()
    pairs = answer_and_reference_pairs()
    # Ground truth, human transcriptions and olmOCR's answers to the old scans, judged as scans (no layer).
    loops = [name for name, text in pages if repetition(text).degenerate]
    assert loops == []
    duplicates = {name for name, text in pages if duplicated_paragraph(tokens(text)) is not None}
    # olmOCR's own answer to old scan 92 ends with a sentence written twice (the human transcription has it once).
    assert duplicates == {"olmocr-bench-history/old_scans/olmocr_pipeline/92_pg1_repeat1.md"}
    # pdf-parse-bench's ground truth against its PDFs' own text layers: born-digital pages, the layer's evidence.
    judged = [name for name, answer, layer in pairs if not name.startswith("old_scans")]
    assert len(judged) == 200
    flagged = [n for n, a, layer in pairs if not n.startswith("old_scans") and _guarded(a, layer)]
    assert flagged == []
    assert (HISTORY / "old_scans" / "human" / "92_pg1_repeat1.md").exists()


def _guarded(answer: str, layer: str) -> bool:
    found = tokens(answer)
    return repetition(answer, layer, found).degenerate or duplicated_paragraph(found, layer) is not None
