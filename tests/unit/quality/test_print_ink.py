"""Text without print: near-blank scans the test builds (bleed-through light and dark, mirrored or not, specks, a
stamp) answered with a page of invented prose are flagged, honest answers on them and on real scans are not, and
the blank-page shortcut counts its ink exactly as before."""

from __future__ import annotations

import io

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

from ocr_pipeline.pdf.render import render_pdf_page
from ocr_pipeline.quality import PageFacts, page_signals
from ocr_pipeline.quality.density import text_on_blank
from ocr_pipeline.quality.print_ink import INK_CONTRAST, answer_letters, invented_text, page_ink
from ocr_pipeline.records import PageResult
from tests.support.builders import near_blank
from tests.support.pages import rendered_scan
from tests.support.shared_data import HISTORY
from tests.support.vlm_answers import INVENTED_PAGE

# The back of a sheet, as a scanner sees it: the front's text showing through, darker or lighter, blurred by the
# paper; dust; an office stamp. Each is answered with ~250 invented words by a model that makes up a page.
NEAR_BLANK = {
    "bleed-through, medium": near_blank.bleed_through(100, 1.5),
    "bleed-through, dark": near_blank.bleed_through(120, 1.5),
    "bleed-through, darker": near_blank.bleed_through(150, 2.0),
    "bleed-through, dark, not mirrored": near_blank.bleed_through(120, 2.0, mirrored=False),
    "bleed-through and specks": near_blank.darkest(near_blank.bleed_through(110, 2.5), near_blank.specks(60)),
    "specks": near_blank.specks(40),
    "a stamp": near_blank.stamp(),
}


# Lighter bleed-through has no ink past the shortcut's contrast: the page is answered as blank, no model asked.
SHORTCUT = {"bleed-through, light": near_blank.bleed_through(60, 1.5), "faint": near_blank.bleed_through(90, 2.0)}


def _old_ink_pixels(png: bytes) -> int:
    """The blank-page shortcut's ink count as it was computed before the print measure."""
    with Image.open(io.BytesIO(png)) as image:
        grey = np.asarray(image.convert("L"), dtype=np.int16)
    return int(np.count_nonzero(np.abs(grey - int(np.median(grey))) > INK_CONTRAST))


@pytest.mark.parametrize("name", list(NEAR_BLANK))
def test_a_page_of_invented_prose_for_a_near_blank_scan_is_flagged(name: str) -> None:
    png = rendered_scan(NEAR_BLANK[name])
    ink = page_ink(png)
    assert ink.ink_pixels == _old_ink_pixels(png)  # the blank-page shortcut's count is unchanged
    assert ink.ink_pixels > 24  # not blank: the shortcut sends it to the model
    assert answer_letters(INVENTED_PAGE) > 1000  # 268 words
    assert invented_text(INVENTED_PAGE, ink.capacity) is not None
    # What an honest reader answers there passes: nothing, or the stamp's own words.
    assert invented_text("", ink.capacity) is None
    assert invented_text("RECEIVED\n\nMAR 12 1911", ink.capacity) is None


@pytest.mark.parametrize("name", list(SHORTCUT))
def test_lighter_bleed_through_is_left_to_the_blank_page_shortcut(name: str) -> None:
    png = rendered_scan(SHORTCUT[name])
    assert page_ink(png).ink_pixels == _old_ink_pixels(png) <= 24


def test_the_old_ink_count_misses_the_darker_bleed_through_the_print_measure_catches() -> None:
    missed = []
    for name, image in NEAR_BLANK.items():
        ink = page_ink(rendered_scan(image))
        if not text_on_blank(INVENTED_PAGE, False, ink.ink_pixels):
            missed.append(name)
    # Counting ink alone lets the darker bleed-through pass; its blurred strokes hold almost no print.
    assert {"bleed-through, dark", "bleed-through, darker", "bleed-through, dark, not mirrored"} <= set(missed)


@pytest.mark.parametrize("depth", [40, 60, 120])
def test_faint_but_sharp_print_holds_its_own_text(depth: int) -> None:
    ink = page_ink(rendered_scan(near_blank.faint_print(depth)))
    honest = near_blank.FRONT_PAGE  # what the page prints
    assert invented_text(honest, ink.capacity) is None


def test_the_signal_is_stored_for_pages_the_stage_measured() -> None:
    ink = page_ink(rendered_scan(NEAR_BLANK["bleed-through, dark"]))
    facts = PageFacts(910, 1288, ink_pixels=ink.ink_pixels, print_capacity=ink.capacity)
    signals = page_signals(PageResult("h", 1, INVENTED_PAGE, engine="vlm"), facts)
    assert signals["invented_text"] and signals["print_capacity"] == ink.capacity
    assert not page_signals(PageResult("h", 1, INVENTED_PAGE, engine="vlm"), PageFacts(910, 1288))["invented_text"]


@pytest.mark.shared_data
def test_honest_transcriptions_of_the_real_old_scans_fit_their_print() -> None:
    humans = sorted((HISTORY / "old_scans" / "human").glob("*.md"))
    flagged = []
    for human in humans:
        pdf = HISTORY / "old_scans" / "pdfs" / f"{human.name.split('_pg')[0]}.pdf"
        doc = pdfium.PdfDocument(str(pdf))
        try:
            capacity = page_ink(render_pdf_page(doc, 0).png).capacity
        finally:
            doc.close()
        if invented_text(human.read_text(encoding="utf-8"), capacity) is not None:
            flagged.append(human.name)
    assert len(humans) == 40 and flagged == []


def test_the_measure_does_not_depend_on_the_render_size() -> None:
    image = NEAR_BLANK["a stamp"]
    small, large = page_ink(near_blank.png(image)), page_ink(near_blank.png(image.resize((1820, 2576))))
    assert large.scale == 2.0 and abs(large.capacity - small.capacity) <= 0.3 * small.capacity
