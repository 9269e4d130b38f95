"""Blank pages are answered before OCR: no engine call, an empty non-error result, no verdict on their document."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from ocr_pipeline.engines.factory import SequentialEngine
from ocr_pipeline.records import PageInput, PageResult
from ocr_pipeline.stages.dolma_documents import build_document
from ocr_pipeline.stages.page_images import PAGES_SCHEMA
from ocr_pipeline.stages.vlm_ocr_outputs import ocr_with_engine
from ocr_pipeline.workspace.keys import ocr_key, pages_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_rows, write_table


class CountingEngine:
    """Reads every page as `page <n>` and counts the pages it was given."""

    name, model = "counting", "counting-1"

    def __init__(self) -> None:
        self.calls = 0

    def ocr_page(self, page: PageInput) -> PageResult:
        """One page's fixed text."""
        self.calls += 1
        return PageResult(page.source_hash, page.page_num, f"page {page.page_num}", engine=self.name, model=self.model)


def _png(kind: str) -> bytes:
    image = Image.new("L", (910, 1288), 255)
    if kind == "speckled":  # an empty scan: faint grain and a few specks of dust
        grain = np.random.default_rng(7).integers(235, 256, size=(1288, 910), dtype=np.uint8)
        grain[100, 100:110] = 0
        image = Image.fromarray(grain)
    elif kind == "digit":  # nothing but a page number
        ImageDraw.Draw(image).text((450, 1240), "7", fill=0, font_size=14)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _page(sha: str, num: int, kind: str, text_layer: str = "") -> dict:
    return {"source": f"/in/{sha}.pdf", "sha256": sha, "page_num": num, "png": _png(kind), "width": 910,
            "height": 1288, "text_layer": text_layer, "text_layer_trusted": False, "render_error": None}  # fmt: skip


def test_blank_pages_skip_the_engine_and_count_as_neither_error_nor_fallback(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path)
    pages = [
        _page("mixed", 1, "digit"),
        _page("mixed", 2, "white"),
        _page("mixed", 3, "speckled"),
        _page("mixed", 4, "white", text_layer="a text layer is text: the engine decides"),
        _page("allblank", 1, "white"),
        _page("allblank", 2, "speckled"),
    ]
    write_table(ws, pages_key("g1"), pages, PAGES_SCHEMA)
    engine = CountingEngine()
    result = ocr_with_engine(ws, "g1", SequentialEngine(engine, "r1"), 1288)
    assert engine.calls == 2  # the page number and the page with a text layer; four blank pages cost nothing
    assert result.pages == 6 and result.error_pages == 0 and result.fallback_pages == 0
    rows = {(r["sha256"], r["page_num"]): r for r in read_rows(ws, ocr_key("g1"))}
    blank = rows[("mixed", 2)]
    assert blank["text"] == "" and blank["error"] is None and not blank["is_fallback"]
    assert set(blank) == set(rows[("mixed", 1)])  # the same record fields as an engine's page
    # A document with text on other pages keeps its blank pages as empty pages; an all-blank one has no text.
    by_doc = {sha: [PageResult.from_dict({**r, "source_hash": sha, "extra": {}}) for (s, _), r in sorted(rows.items())
                    if s == sha] for sha in ("mixed", "allblank")}  # fmt: skip
    mixed = build_document("/in/mixed.pdf", by_doc["mixed"], added="2026-01-01", total_pages=4)
    assert mixed["text"].strip() and mixed["metadata"]["total-fallback-pages"] == 0
    assert mixed["metadata"]["engine"] == "counting"
    assert not build_document("/in/allblank.pdf", by_doc["allblank"], added="2026-01-01", total_pages=2)["text"].strip()
