"""Each way a text layer lies goes to the model, with its reason; plain born-digital prose is routed.

The PDFs are built here (tests/support/builders/route_pdfs.py) and read as a `route auto` run reads them: page rows
with the full layout and the routing evidence (`document_pages(text=ROUTE)`), decided with the shipped parameters.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ocr_pipeline.pdf.page_rows import ROUTE, document_pages
from ocr_pipeline.routing import RouteDecision, RouteEvidence, decide
from tests.support.builders import layout_pdfs, pdfgen, route_pdfs

CASES = {
    "a letter-shifted font map": (route_pdfs.shifted_map_pdf, "letters, not words"),
    # Which of the layer's checks speaks first depends on the letters the permutation makes: either says "no words".
    "a scrambled font map": (route_pdfs.scrambled_map_pdf, ("no function words known", "letters, not words")),
    "an invisible OCR layer with wrong words over a scan": (
        lambda: layout_pdfs.hidden_layer_scan_pdf([route_pdfs.PROSE, route_pdfs.PROSE], wrong_every=3),
        "characters drawn invisibly",
    ),
    "a digital header on a scanned body": (
        lambda: pdfgen.stamped_scan_pdf(route_pdfs.prose_pdf(pages=1), "Received 12 March 2026 by the Registry"),
        "images cover",
    ),
    "a pasted raster of text under born-digital text": (route_pdfs.pasted_raster_pdf, "lines of raster text"),
    "a page of equations": (route_pdfs.equations_pdf, "1 formulas"),
    "a table": (lambda: layout_pdfs.table_pdf("ruled"), "1 tables"),
}


def _decisions(tmp_path: Path, data: bytes) -> list[RouteDecision]:
    pdf = tmp_path / "page.pdf"
    pdf.write_bytes(data)
    rows = list(document_pages("pdf", str(pdf), 1288, text=ROUTE))
    assert all(row["text_layer_kind"] == "layout" and row["route_evidence"] for row in rows)
    return [decide(RouteEvidence.from_json(row["route_evidence"])) for row in rows]


@pytest.mark.parametrize("name", list(CASES))
def test_a_layer_that_lies_goes_to_the_model(tmp_path: Path, name: str) -> None:
    build, expected = CASES[name]
    [decision] = _decisions(tmp_path, build())
    assert decision.route == "model"
    reasons = (expected,) if isinstance(expected, str) else expected
    assert any(reason in r for r in decision.reasons for reason in reasons), decision.reasons


@pytest.mark.parametrize("columns", [1, 2])
def test_plain_prose_with_running_heads_is_routed(tmp_path: Path, columns: int) -> None:
    decisions = _decisions(tmp_path, route_pdfs.prose_pdf(pages=3, columns=columns))
    assert [d.route for d in decisions] == ["text_layer"] * 3, [d.reasons for d in decisions]


def test_rows_read_without_routing_carry_no_evidence(tmp_path: Path) -> None:
    pdf = tmp_path / "page.pdf"
    pdf.write_bytes(route_pdfs.prose_pdf(pages=1))
    for kind in ("layout", "plain"):
        [row] = document_pages("pdf", str(pdf), 1288, text=kind)
        assert row["route_evidence"] is None
