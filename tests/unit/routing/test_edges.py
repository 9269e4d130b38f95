"""Lines kept at a page's top or bottom: every candidate with its position, distance to the others and width."""

from __future__ import annotations

from ocr_pipeline.routing.edges import LineBox, edge_candidates


def test_a_page_number_and_a_head_at_the_edges_are_candidates_with_their_geometry() -> None:
    body = [LineBox(72, 100 + 14 * k, 520, 110 + 14 * k, f"Body line {k} of the page") for k in range(40)]
    head = LineBox(72, 30, 200, 40, "Journal of Rural Studies")
    number = LineBox(290, 800, 300, 810, "98")
    found = {c["text"]: c for c in edge_candidates([head, *body, number], 842)}
    assert set(found) >= {"Journal of Rural Studies", "98"}
    assert found["98"]["y"] > 0.95 and found["98"]["gap"] > 10 and found["98"]["width"] < 0.1
    assert found["Journal of Rural Studies"]["y"] < 0.05
    assert all(0 <= c["y"] <= 0.2 or c["y"] >= 0.8 for c in found.values())


def test_no_lines_no_candidates() -> None:
    assert edge_candidates([], 842) == [] and edge_candidates([LineBox(0, 0, 10, 0, "flat")], 842) == []
