"""The two kinds of text layer a page row carries, and the full layout read afterwards for the pages that need it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ocr_pipeline.engines import factory
from ocr_pipeline.engines.factory import SequentialEngine
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.quality import PageFacts
from ocr_pipeline.records import TEXT_LAYOUT, TEXT_PLAIN, PageInput, PageResult
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.fallback_layouts import FallbackLayouts, LayoutUnavailable, with_layouts
from ocr_pipeline.stages.filtered_pdfs import filter_group
from ocr_pipeline.stages.page_images import render_group
from ocr_pipeline.stages.pdf_inventory import scan_inputs
from ocr_pipeline.stages.vlm_ocr_outputs import ocr_with_engine
from ocr_pipeline.workspace.keys import ocr_key, pages_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_rows
from tests.support.builders import layout_pdfs, pdfgen

HEAD = "Journal of Rural Studies"


def _journal(folder: Path) -> Path:
    return pdfgen.write(folder / "journal.pdf", layout_pdfs.furniture_pdf(pages=4, head=HEAD, body_lines=12))


def _rows(path: Path, **options: Any) -> list[dict[str, Any]]:
    return list(document_pages("pdf", str(path), 500, **options))


def test_plain_rows_keep_what_the_layout_drops_and_the_same_image(tmp_path: Path) -> None:
    pdf = _journal(tmp_path)
    layout, plain = _rows(pdf), _rows(pdf, text=TEXT_PLAIN)
    assert {r["text_layer_kind"] for r in layout} == {TEXT_LAYOUT} and {r["text_layer_kind"] for r in plain} == {
        TEXT_PLAIN
    }
    for a, b in zip(layout, plain, strict=True):
        assert HEAD not in a["text_layer"] and HEAD in b["text_layer"]  # the running head is furniture
        assert b["text_layer_trusted"] and a["text_layer_trusted"]
        assert "\ufffd" not in b["text_layer"]  # pdfium's CR LF line ends are no control characters
        assert (a["png"], a["width"], a["height"]) == (b["png"], b["width"], b["height"])


def test_the_layout_of_some_pages_is_what_a_whole_render_gives_them(tmp_path: Path) -> None:
    pdf = _journal(tmp_path)
    whole = {r["page_num"]: r for r in _rows(pdf)}
    some = _rows(pdf, pages=[3, 1, 3, 9], images=False)  # sorted, once each, past the end left out
    assert [r["page_num"] for r in some] == [1, 3]
    for row in some:
        assert row["png"] is None and row["render_error"] is None
        # The running heads were found over all four pages, though two were asked for.
        for name in ("text_layer", "text_layer_trusted", "image_covered", "render_note", "text_layer_kind"):
            assert row[name] == whole[row["page_num"]][name]
    with pytest.raises(ValueError, match="text layer kind"):
        _rows(pdf, text="fancy")


def _group(tmp_path: Path) -> tuple[LocalWorkspace, str, Path]:
    folder = tmp_path / "in"
    pdf = _journal(folder)
    pdfgen.write(folder / "short.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:3]]))
    ws = LocalWorkspace(tmp_path / "ws")
    [group] = scan_inputs([str(folder)], ws, pages_per_group=1000).new_groups
    filter_group(ws, group, apply_filter=True)
    return ws, group, pdf


def test_fallback_pages_get_their_layout_in_one_request_per_document(tmp_path: Path) -> None:
    ws, group, pdf = _group(tmp_path)
    whole = {r["page_num"]: r["text_layer"] for r in _rows(pdf)}
    plain = {r["page_num"]: r["text_layer"] for r in _rows(pdf, text=TEXT_PLAIN)}
    waiting = [(str(pdf), PageResult("h", n, plain[n], is_fallback=True), PageFacts()) for n in (2, 4)]
    layouts = FallbackLayouts(ws, group)
    try:
        done = list(with_layouts(waiting, layouts))
        assert layouts.requests == 1
    finally:
        layouts.close()
    assert [(p.page_num, p.text) for _, p, _ in done] == [(2, whole[2]), (4, whole[4])]
    assert all("layout_error" not in p.extra for _, p, _ in done)


def test_an_input_changed_since_its_render_keeps_the_plain_text_and_says_so(tmp_path: Path) -> None:
    ws, group, pdf = _group(tmp_path)
    plain = _rows(pdf, text=TEXT_PLAIN)[1]["text_layer"]
    pdf.write_bytes(layout_pdfs.furniture_pdf(pages=4, head="Another Journal", body_lines=12))
    layouts = FallbackLayouts(ws, group)
    try:
        with pytest.raises(LayoutUnavailable, match="changed since"):
            layouts.rows(str(pdf), [2])
        [(_, page, _)] = with_layouts([(str(pdf), PageResult("h", 2, plain, is_fallback=True), PageFacts())], layouts)
        with pytest.raises(LayoutUnavailable, match="not among the kept inputs"):
            layouts.rows("/elsewhere/other.pdf", [1])
    finally:
        layouts.close()
    assert page.text == plain
    assert page.extra["text_layer_kind"] == TEXT_PLAIN and "changed since" in page.extra["layout_error"]


class LayerEngine:
    """Answers every page with its text layer, as the CPU engine answers a page whose layer it trusts."""

    name, model = "layer", "layer-1"

    def ocr_page(self, page: PageInput) -> PageResult:
        """The page's own text layer."""
        return PageResult(page.source_hash, page.page_num, page.text_layer, engine=self.name, model=self.model)


def test_an_engine_that_answers_with_the_layer_gets_the_layout_of_plain_pages(tmp_path: Path) -> None:
    ws, group, pdf = _group(tmp_path)
    # Rendered for the VLM path, read by an engine that reads the layer (settings changed between the two steps).
    render_group(ws, group, 500, text_layer=TEXT_PLAIN)
    assert {r["text_layer_kind"] for r in read_rows(ws, pages_key(group))} == {TEXT_PLAIN}
    ocr_with_engine(ws, group, SequentialEngine(LayerEngine(), "r1"), 500)
    texts = {(Path(r["source"]).name, r["page_num"]): r["text"] for r in read_rows(ws, ocr_key(group))}
    for row in _rows(pdf):
        assert texts[("journal.pdf", row["page_num"])] == row["text_layer"]


def test_the_vlm_engine_asks_for_plain_text_and_the_cpu_engine_for_the_layout() -> None:
    assert factory.text_layer_kind(PipelineSettings(workspace="w", server="http://127.0.0.1:9/v1")) == TEXT_PLAIN
    assert factory.text_layer_kind(PipelineSettings(workspace="w")) == TEXT_LAYOUT
    assert factory.ServerEngine.reads_text_layer is False and SequentialEngine.reads_text_layer is True
