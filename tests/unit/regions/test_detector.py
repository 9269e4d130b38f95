"""The shipped layout model: the file is the one MODEL.md names, and it finds a page's running head and footer."""

from __future__ import annotations

import hashlib
import io
import re
from importlib import resources
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

from ocr_pipeline.pdf.render import render_pdf_page
from ocr_pipeline.regions import detector
from ocr_pipeline.regions.detector import RegionDetector, furniture_boxes
from tests.support.builders import layout_pdfs, pdfgen


def _page_image(tmp_path: Path) -> Image.Image:
    """Page 1 of a journal-like document: a running head over the body, a centred page number under it."""
    path = pdfgen.write(tmp_path / "doc.pdf", layout_pdfs.furniture_pdf(pages=1))
    doc = pdfium.PdfDocument(str(path))
    try:
        return Image.open(io.BytesIO(render_pdf_page(doc, 0, 1288).png)).convert("RGB")
    finally:
        doc.close()


def test_the_shipped_model_is_the_file_model_md_names() -> None:
    folder = resources.files("ocr_pipeline.regions")
    named = re.search(r"sha256 ([0-9a-f]{64})", folder.joinpath("MODEL.md").read_text())
    assert named is not None
    assert hashlib.sha256(folder.joinpath(detector.MODEL_FILE).read_bytes()).hexdigest() == named[1]


def test_a_running_head_and_a_page_number_are_found_where_they_stand(tmp_path: Path) -> None:
    image = _page_image(tmp_path)
    found = RegionDetector().furniture(image)
    heads = [r for r in found if r.kind == "header"]
    feet = [r for r in found if r.kind == "footer"]
    assert heads and feet, found
    # In the page's pixels: the head in the top tenth, the number in the bottom tenth, both scored past the bar.
    assert all(r.y1 < 0.1 * image.height for r in heads) and all(r.y0 > 0.9 * image.height for r in feet)
    assert min(r.score for r in found) >= detector.MIN_SCORE


def test_a_blank_page_has_no_furniture() -> None:
    assert RegionDetector().furniture(Image.new("RGB", (910, 1288), "white")) == []


def test_regions_come_back_in_the_units_asked_for(tmp_path: Path) -> None:
    image = _page_image(tmp_path)
    pixels = furniture_boxes(np.asarray(image))
    points = furniture_boxes(np.asarray(image), scale=2.0)
    assert pixels and [b.text for b in pixels] == [b.text for b in points]
    assert all(abs(a.x1 / 2 - b.x1) < 1e-6 and abs(a.y0 / 2 - b.y0) < 1e-6 for a, b in zip(pixels, points, strict=True))


def test_a_model_that_cannot_run_leaves_the_page_to_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def furniture(self, image: object) -> list[object]:
            raise RuntimeError("onnxruntime: no such provider")

    monkeypatch.setattr(detector, "shipped_detector", lambda: Broken())
    assert furniture_boxes(Image.new("RGB", (10, 10))) == []
