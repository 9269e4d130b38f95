"""The CPU engine with real RapidOCR: scans read upright and in order, trusted text layers skip OCR."""

from __future__ import annotations

import io

import numpy as np
import pypdfium2 as pdfium
import pytest
from rapidfuzz import fuzz

from ocr_pipeline.engines.cpu import CpuEngine, detect_language
from ocr_pipeline.records import PageInput
from tests.support.builders import pdfgen

S = pdfgen.SENTENCES
LONGEST_PX = 1288


@pytest.fixture(scope="module")
def engine() -> CpuEngine:
    return CpuEngine()


def _png(pdf: bytes, longest: int = LONGEST_PX) -> bytes:
    doc = pdfium.PdfDocument(pdf)
    try:
        page = doc[0]
        img = page.render(scale=longest / max(page.get_size())).to_pil()
    finally:
        doc.close()
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _assert_in_order(text: str, sentences: list[str]) -> None:
    flat = " ".join(text.split())
    for s in sentences:
        assert fuzz.partial_ratio(s, flat) >= 90, (s, flat)
    # Where each sentence best matches, in page order.
    starts = [fuzz.partial_ratio_alignment(s, flat).dest_start for s in sentences]
    assert starts == sorted(starts), (starts, flat)


def test_two_column_scan_is_read_column_by_column(engine: CpuEngine) -> None:
    scan = pdfgen.scan_pdf(pdfgen.two_column_pdf(S[:4], S[4:]), dpi=100)
    result = engine.ocr_page(PageInput("h", 1, _png(scan)))
    assert result.error is None and not result.is_fallback
    _assert_in_order(result.text, S)
    assert result.engine == "cpu" and result.model.startswith("rapidocr-3.10.0")
    assert result.primary_language == "en"
    assert result.rotation_correction == 0 and result.is_rotation_valid
    assert result.input_tokens == result.output_tokens == 0 and result.elapsed_s > 0
    assert not result.is_table and not result.is_diagram


@pytest.mark.parametrize(("turned", "correction"), [(90, 90), (180, 180), (270, 270)])
def test_rotated_scans_are_read_upright(engine: CpuEngine, turned: int, correction: int) -> None:
    # scan_pdf turns the picture `turned` degrees clockwise; olmOCR's correction turns it back
    # counter-clockwise by the same amount.
    scan = pdfgen.scan_pdf(pdfgen.text_pdf([S[:3]]), rotate_content=turned, dpi=100)
    result = engine.ocr_page(PageInput("h", 1, _png(scan, 1000)))
    assert result.rotation_correction == correction, result.extra
    assert not result.is_rotation_valid and result.extra["rotation_applied"]
    _assert_in_order(result.text, S[:3])


def test_trusted_text_layer_skips_ocr(engine: CpuEngine) -> None:
    layer = " ".join(S[:3])
    result = engine.ocr_page(PageInput("h", 2, None, text_layer=layer, text_layer_trusted=True))
    assert result.text == layer and result.error is None and not result.is_fallback
    assert result.extra["source"] == "text_layer" and result.primary_language == "en"


def test_untrusted_text_layer_is_replaced_by_ocr(engine: CpuEngine) -> None:
    pdf = pdfgen.text_pdf([S[:2]], font_size=20)
    result = engine.ocr_page(PageInput("h", 1, _png(pdf, 900), text_layer="(cid:3)(cid:4)"))
    assert result.extra["source"] == "ocr"
    _assert_in_order(result.text, S[:2])


@pytest.mark.parametrize("png", [None, b"", b"not a png at all"])
def test_bad_image_falls_back_to_text_layer(engine: CpuEngine, png: bytes | None) -> None:
    result = engine.ocr_page(PageInput("h", 3, png, text_layer="Fallback p. 3"))
    assert result.is_fallback and result.error
    assert result.text == "Fallback p. 3"
    assert result.primary_language is None  # too little text to tell


def test_blank_page_gives_empty_text(engine: CpuEngine) -> None:
    result = engine.ocr_page(PageInput("h", 4, _png(pdfgen.text_pdf([[]]), 400)))
    assert result.text == "" and result.error is None and result.primary_language is None


def test_language_detection_is_deterministic() -> None:
    german = "Der schnelle braune Fuchs springt über den faulen Hund am Ufer des Flusses."
    assert {detect_language(german) for _ in range(5)} == {"de"}
    assert detect_language("ok 42") is None


def test_upright_page_read_confidently_skips_the_orientation_pass(engine: CpuEngine) -> None:
    # The first pass reads an upright page near-perfectly: no 180 turn could beat it by the margin, so the
    # crops are not recognised again, and the words are those of an engine that never checks orientation.
    png = _png(pdfgen.scan_pdf(pdfgen.text_pdf([S[:3]]), dpi=100), 1000)
    calls: list[int] = []
    recognise = engine._recognise
    # Counts the batches; restored below.
    engine._recognise = lambda crops: calls.append(len(crops)) or recognise(crops)  # type: ignore[method-assign]
    try:
        result = engine.ocr_page(PageInput("h", 1, png))
    finally:
        del engine._recognise
    assert calls == [] and result.extra["orientation"]["score_turned"] is None, result.extra
    assert result.rotation_correction == 0
    assert result.text == CpuEngine(detect_rotation=False).ocr_page(PageInput("h", 1, png)).text
    _assert_in_order(result.text, S[:3])


def test_recognition_batches_run_split_across_single_threaded_sessions(engine: CpuEngine) -> None:
    from ocr_pipeline.engines.cpu.sessions import SplitSession, new_session

    rec = engine._engine().text_rec.session.session
    assert isinstance(rec, SplitSession)
    assert all(s.get_session_options().intra_op_num_threads == 1 for s in rec.sessions)
    batch = np.random.default_rng(0).random((5, 3, 48, 320), dtype=np.float32)
    name = rec.get_inputs()[0].name
    whole = new_session(rec.sessions[0]._model_path, 1).run(None, {name: batch})[0]
    assert np.allclose(rec.run([o.name for o in rec.get_outputs()], {name: batch})[0], whole, atol=1e-5)


def test_space_dropped_after_punctuation_is_put_back(engine: CpuEngine) -> None:
    # Typewritten letters set a comma or stop tight against the next word often enough, and the recogniser
    # drops the space after punctuation itself: either way the words run together.
    pdf = pdfgen.text_pdf([["Thousands will greet you,and in no uncertain tones.Progressivism is here."]], font_size=20)
    text = engine.ocr_page(PageInput("h", 1, _png(pdf, 900))).text
    assert "you, and" in text and "tones. Progressivism" in text, text


def test_sampled_lines_are_read_as_one_batch_in_order(engine: CpuEngine) -> None:
    from PIL import Image, ImageDraw, ImageFont

    def line(text: str) -> np.ndarray:
        img = Image.new("RGB", (40 + 22 * len(text), 64), "white")
        ImageDraw.Draw(img).text((20, 12), text, fill="black", font=ImageFont.load_default(size=36))
        return np.asarray(img)

    words = ["Harbour", "meadow lane", "Seventeen"]
    readings = engine._read_lines([line(w) for w in words])
    # As many readings as lines, in the lines' order (the recogniser sorts a batch by width inside).
    assert [t for t, _ in readings] == words and all(s > 0.8 for _, s in readings)
    assert engine._read_lines([]) == []
    blank = np.full((40, 200, 3), 255, np.uint8)
    assert engine._read_lines([blank]) == [("", 0.0)]  # nothing legible reads as nothing, as RapidOCR's own call
