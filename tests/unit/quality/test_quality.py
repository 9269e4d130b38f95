"""Per-page quality signals: model loops flagged, honest real pages not, and Dolma spans that drop a bad page."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ocr_pipeline.quality import PageFacts, add_document_language, page_signals, quality_attributes
from ocr_pipeline.quality.attributes import PREFIX
from ocr_pipeline.quality.degenerate import degenerate_reason
from ocr_pipeline.quality.repetition import repetition
from ocr_pipeline.quality.truncation import truncation
from ocr_pipeline.records import PageResult
from ocr_pipeline.stages.dolma_documents import build_document
from tests.support.builders import pdfgen
from tests.support.real_pages import real_page_texts
from tests.support.vlm_answers import GERMAN

GERMAN_MORE = (
    "Im Herbst beschloss der Gemeinderat, die alte Brücke über den Mühlbach zu erneuern, weil die "
    "Pfeiler bei jedem Hochwasser weiter ausgespült wurden und die Feuerwehr einen Umweg fahren musste."
)
PROSE = ("The committee met on Tuesday to review the budget. Members raised questions about the cost of the new "
         "library wing, and the chair promised a written answer before the next session.")  # fmt: skip
LOOPS = {
    "line repeated 200 times": "# Results\n\n" + "Table 3: results of the experiment on the validation set\n" * 200,
    "table row repeated": "<table>" + "<tr><td>0.12</td><td>0.34</td><td>n/a</td></tr>\n" * 100 + "</table>",
    "characters repeated": PROSE + " " + "ab" * 400,
}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_model_loops_are_degenerate(name: str) -> None:
    assert repetition(LOOPS[name]).degenerate


def test_prose_said_three_times_is_not_degenerate() -> None:
    assert not repetition(PROSE * 3).degenerate  # a paragraph said three times is not a loop of the model


@pytest.mark.shared_data
def test_real_pages_are_not_degenerate() -> None:
    pages = real_page_texts()
    flagged = [name for name, text in pages if repetition(text).degenerate]
    assert flagged == [], f"{len(flagged)} of {len(pages)} real pages flagged"


def test_truncation_sees_the_server_and_open_structures() -> None:
    assert truncation(PROSE, "length").truncated
    assert truncation("<table><tr><td>1</td>", "stop").open_table
    assert truncation("Energy: $$E = mc^2", None).open_formula
    assert not truncation("A row \\\\[3pt] and \\[x\\] closed", None).truncated
    assert not truncation(PROSE, "stop").truncated


def _signals(text: str, **kw: object) -> dict:
    return page_signals(PageResult("h", 1, text, **kw), PageFacts(910, 1288, trusted_text_layer=PROSE))  # type: ignore[arg-type]


def test_agreement_density_blank_and_language() -> None:
    assert _signals(PROSE)["text_layer_agreement"] == 1.0
    assert _signals("Ein völlig anderer Text über etwas anderes.")["text_layer_agreement"] < 0.5
    assert _signals(PROSE, is_fallback=True)["text_layer_agreement"] is None  # the layer agreeing with itself
    assert _signals(LOOPS["line repeated 200 times"])["chars_per_sq_in"] > 100 > _signals(PROSE)["chars_per_sq_in"]
    assert _signals("invented text", extra={"blank_page": True})["blank_text"]
    rows: list[dict[str, Any]] = [
        {"source": "a", "primary_language": lang, "quality": {}} for lang in ("en", "en", "de")
    ]
    add_document_language(rows)
    assert [r["quality"]["language_mismatch"] for r in rows] == [False, False, True]


def _mix_span_replacement(doc: dict, attribute: str, min_score: float) -> dict:
    """Dolma `mix`'s documented span_replacement: the text of every span scoring >= min_score is replaced ("")."""
    text = doc["text"]
    for start, end, score in sorted(doc["attributes"][attribute], reverse=True):
        if score >= min_score:
            text = text[:start] + text[end:]
    return {**doc, "text": text}


def test_dolma_attributes_let_a_flagged_page_be_removed() -> None:
    pages = [
        PageResult("h", 1, PROSE),
        PageResult("h", 2, LOOPS["line repeated 200 times"]),
        PageResult("h", 3, "End."),
    ]
    quality = {p.page_num: page_signals(p, PageFacts(910, 1288)) for p in pages}
    plain = build_document("/in/a.pdf", pages, added="2026-01-01", total_pages=3)
    doc = json.loads(json.dumps(build_document("/in/a.pdf", pages, added="2026-01-01", total_pages=3, quality=quality)))
    # Every field but the new attributes is what it was; a reader ignoring unknown attributes sees no change.
    new = {k: v for k, v in doc["attributes"].items() if k.startswith("ocr_pipeline__quality__")}
    assert {k: v for k, v in doc.items() if k != "attributes"} == {k: v for k, v in plain.items() if k != "attributes"}
    assert {k: v for k, v in doc["attributes"].items() if k not in new} == plain["attributes"]
    spans = doc["attributes"]["pdf_page_numbers"]
    assert doc["attributes"]["ocr_pipeline__quality__degenerate"] == [[s, e, int(p == 2)] for s, e, p in spans]
    assert all(len(span) == 3 for values in new.values() for span in values)
    mixed = _mix_span_replacement(doc, "ocr_pipeline__quality__flagged", 0.5)
    assert mixed["text"] == PROSE + "\nEnd."


def test_degenerate_reason_names_the_first_verdict_that_fails() -> None:
    assert degenerate_reason("An honest page of prose that ends with a full stop.", "stop") is None
    assert degenerate_reason("The committee met again and adjourned. " * 150, "stop") == "repetition loop"
    # Open structures are flagged by the signals, not retried: an honest page can end inside a formula.
    assert degenerate_reason("<table><tr><td>1</td></tr>", "stop") is None
    assert degenerate_reason("The sum is $$ x + y", "stop") is None
    assert degenerate_reason("<table><tr><td>1", "length") == "truncated: finish_reason length"


def test_a_fallback_after_degenerate_answers_keeps_their_verdict() -> None:
    layer = "The PDF's own text for this page."
    retried = PageResult(
        "h", 1, layer, is_fallback=True, extra={"retried_for": ["repetition loop", "truncated: unclosed table"]}
    )
    signals = page_signals(retried, PageFacts())
    assert signals["degenerate"] and signals["truncated"] and signals["repetition"] == 0.0
    assert not signals["wrong_language"]
    foreign = PageResult(
        "h", 1, layer, is_fallback=True, extra={"retried_for": ["wrong language: de, the text layer's en"]}
    )
    signals = page_signals(foreign, PageFacts())
    assert signals["wrong_language"] and not signals["degenerate"]
    spans = quality_attributes([[0, len(layer), 1]], {1: signals})
    assert spans[PREFIX + "wrong_language"] == spans[PREFIX + "flagged"] == [[0, len(layer), 1]]
    # Only a fallback borrows the engine's answers: a page that recovered is judged by its own (clean) text.
    recovered = PageResult("h", 1, layer, extra={"retried_for": ["repetition loop"]})
    assert not page_signals(recovered, PageFacts())["degenerate"]


def test_a_front_matter_that_names_another_language_than_the_words_is_a_signal_not_a_flag() -> None:
    # Two different paragraphs: one written twice would be a duplicated paragraph (flagged on its own).
    german = GERMAN + " " + GERMAN_MORE
    english = " ".join(pdfgen.SENTENCES) * 2
    said_en = PageResult("h", 1, german, primary_language="en", engine="vlm")
    assert page_signals(said_en, PageFacts())["declared_language_mismatch"] is True
    assert (
        page_signals(PageResult("h", 1, german, primary_language="de", engine="vlm"), PageFacts())[
            "declared_language_mismatch"
        ]
        is False
    )
    assert (
        page_signals(PageResult("h", 1, english, primary_language="en", engine="vlm"), PageFacts())[
            "declared_language_mismatch"
        ]
        is False
    )
    # Too little prose, no declared language, the CPU engine's own detection, a fallback: nothing to judge.
    for page in (
        PageResult("h", 1, "Kurzer Titel", primary_language="en", engine="vlm"),
        PageResult("h", 1, german, primary_language=None, engine="vlm"),
        PageResult("h", 1, german, primary_language="en", engine="cpu"),
        PageResult("h", 1, german, primary_language="en", engine="vlm", is_fallback=True),
    ):
        assert page_signals(page, PageFacts())["declared_language_mismatch"] is None
    spans = quality_attributes([[0, len(german), 1]], {1: page_signals(said_en, PageFacts())})
    assert spans[PREFIX + "declared_language_mismatch"] == [[0, len(german), 1]]
    assert spans[PREFIX + "flagged"] == [[0, len(german), 0]]  # the words may still be the page's
