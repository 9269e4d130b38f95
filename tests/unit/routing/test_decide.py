"""The routing decision on evidence: a page is read from its layer only when every piece of evidence clears it."""

from __future__ import annotations

import dataclasses

import pytest

from ocr_pipeline.routing import RouteEvidence, RouteParams, decide

BODY_LINE = {"text": "Body line", "y": 0.5, "gap": 0.2, "width": 1.0}
SURE = RouteEvidence(trusted=True, trust_reason="ok", words=400, language="en", function_word_share=0.4,
                     ink_pixels=90_000, edge_lines=[BODY_LINE])  # fmt: skip


def test_a_page_whose_evidence_clears_every_bound_is_routed() -> None:
    decision = decide(SURE)
    assert decision.routed and decision.route == "text_layer" and decision.reasons == []


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"trusted": False, "trust_reason": "too little text"}, "text layer not trusted: too little text"),
        ({"bad_chars": 3}, "3 characters no font maps"),
        ({"words": 12}, "12 words: too few"),
        ({"language": None}, "no function words known"),
        ({"function_word_share": 0.0, "language": "de"}, "letters, not words: 0.0% function words of de"),
        ({"invisible_chars": 900}, "900 characters drawn invisibly"),
        ({"image_share": 0.9}, "images cover 90% of the page"),
        ({"raster_text_lines": 17}, "17 lines of raster text"),
        ({"tables": 1}, "1 tables"),
        ({"formulas": 3}, "3 formulas"),
        ({"edge_lines": [{"text": "98", "y": 0.97, "gap": 20.0, "width": 0.05}]}, "kept at the page's edge: '98'"),
        ({"edge_lines": [{"text": "S9 - O3", "y": 0.085, "gap": 1.9, "width": 0.1}]}, "a lone line near the edge"),
        ({"layout_notes": ["region read in simple order"]}, "layout bounds fired"),
    ],
)
def test_each_kind_of_doubt_sends_the_page_to_the_model_and_says_why(change: dict, reason: str) -> None:
    decision = decide(dataclasses.replace(SURE, **change))
    assert not decision.routed and decision.route == "model"
    assert len(decision.reasons) == 1 and decision.reasons[0].startswith(reason), decision.reasons


def test_a_short_line_inside_the_body_or_close_to_others_is_no_doubt() -> None:
    close = {"text": "Chapter 2", "y": 0.08, "gap": 0.5, "width": 0.2}  # a heading right above the body
    wide = {"text": "A full line of the body near the top", "y": 0.08, "gap": 3.0, "width": 0.95}
    assert decide(dataclasses.replace(SURE, edge_lines=[close, wide])).routed


def test_no_evidence_goes_to_the_model() -> None:
    decision = decide(None)
    assert not decision.routed and decision.reasons == ["no routing evidence (read without it)"]


def test_parameters_are_passed_in_and_checked() -> None:
    assert decide(dataclasses.replace(SURE, raster_text_lines=3), RouteParams(max_raster_text_lines=5)).routed
    with pytest.raises(ValueError):
        RouteParams(edge_band=0.2, lone_zone=0.1)
    with pytest.raises(ValueError):
        RouteParams(min_function_word_share=1.5)


def test_evidence_round_trips_through_its_json() -> None:
    assert RouteEvidence.from_json(SURE.to_json()) == SURE
    assert RouteEvidence.from_json(None) is None and RouteEvidence.from_json("") is None
