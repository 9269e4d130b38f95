"""The CPU OCR engine: the PDF text layer where it can be trusted, RapidOCR (ONNX, CPU) otherwise."""

from __future__ import annotations

import io
import logging
import os
import threading
import time
from typing import Any

import numpy as np
from PIL import Image

from ocr_pipeline.engines.cpu.layer_check import LayerVerdict, check_layer
from ocr_pipeline.engines.cpu.line_text import space_after_punctuation
from ocr_pipeline.engines.cpu.orientation import detect_orientation, rotate_upright
from ocr_pipeline.engines.cpu.sessions import tune_sessions
from ocr_pipeline.layout.budget import LayoutBudget
from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS, LayoutParams
from ocr_pipeline.layout.page_reader import SCAN_PAGE, read_page
from ocr_pipeline.layout.scan_layout import level_boxes
from ocr_pipeline.layout.scan_rules import find_rules
from ocr_pipeline.quality.language_detector import page_language
from ocr_pipeline.records import PageInput, PageResult
from ocr_pipeline.runtime.heap import return_freed_memory

RAPIDOCR_VERSION = "3.10.0"
# Large images are shrunk to this longest side before OCR (the pipeline renders 1288 px pages).
MAX_SIDE_PX = 2000


def _default_threads() -> int:
    """Threads per ONNX session: all cores but never more than 4 (more gains little on small models)."""
    return max(1, min(4, os.cpu_count() or 1))


class CpuEngine:
    """OCR engine for machines without a GPU, producing the same PageResult as the VLM engine."""

    name = "cpu"
    model = f"rapidocr-{RAPIDOCR_VERSION}/PP-OCRv6-small"
    # Part of the page memo key, like the VLM's prompt version: raise it when the engine's reading changes
    # (tables, furniture, text-layer repairs), so pages memoised by an older engine are read again.
    revision = "layout-5"

    def __init__(
        self, threads: int | None = None, detect_rotation: bool = True, layout: LayoutParams = LAYOUT_PARAMS
    ) -> None:
        self.threads = threads or _default_threads()
        self.detect_rotation = detect_rotation
        # The thresholds a scan's OCR lines are laid out with (layout/layout_params.py): the documented defaults.
        self.layout = layout
        self._ocr: Any = None
        self._lock = threading.Lock()

    def _engine(self) -> Any:
        """The RapidOCR instance, created once on first use (loading the models takes a moment)."""
        if self._ocr is None:
            with self._lock:
                if self._ocr is None:
                    # onnxruntime reads this once, when imported: without it each process writes a device id
                    # and an event store under ~/.cache/Microsoft and $TMPDIR (its 1DS telemetry).
                    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
                    # Imported here to save start-up time: only pages that reach the CPU engine need it.
                    from rapidocr import RapidOCR

                    logging.getLogger("RapidOCR").setLevel(logging.WARNING)
                    ocr = RapidOCR(
                        params={
                            "Global.log_level": "warning",
                            # Orientation is decided per page below; the per-line 0/180 classifier
                            # costs a third of the time and garbles lines of sideways pages.
                            "Global.use_cls": False,
                            "Global.max_side_len": MAX_SIDE_PX,
                            "EngineConfig.onnxruntime.intra_op_num_threads": self.threads,
                            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                            # One line image per recognition session at a time (sessions.py runs them side by
                            # side): batching lines costs more CPU per line, 20% more at RapidOCR's 6 a batch.
                            "Rec.rec_batch_num": self.threads,
                        }
                    )
                    tune_sessions(ocr, self.threads)
                    self._ocr = ocr
        return self._ocr

    def _run(self, image: Image.Image) -> tuple[list[np.ndarray], list[str], list[float]]:
        """Detection and recognition on one page image: quads, texts, confidences."""
        out = self._engine()(np.asarray(image), use_det=True, use_cls=False, use_rec=True)
        if out.boxes is None or out.txts is None:
            return [], [], []
        return list(out.boxes), list(out.txts), [float(s) for s in out.scores]

    def _read_lines(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        """Text and confidence of text-line images, recognised as one batch: one call an image ran each line alone
        on one session; a batch shares its lines out over the recognition sessions (sessions.py), so the orientation
        check and the hidden-layer check take 0.46 s a page instead of 0.70 s (eight old_scans pages, both checks)."""
        if not crops:
            return []
        # Imported here to save start-up time, as RapidOCR itself is (in _engine): only pages that reach OCR need it.
        from rapidocr.ch_ppocr_rec import TextRecInput

        engine = self._engine()
        # Prepared as RapidOCR's own call prepares an image (channels, size bounds) before recognising it.
        images = [engine.preprocess_img(engine.load_img(crop))[0] for crop in crops]
        out = engine._load_rec_model()(TextRecInput(img=images))
        # RapidOCR's own call drops a reading below its text score: such a line reads as nothing, as it did.
        return [
            (str(text), float(score)) if float(score) >= engine.text_score else ("", 0.0)
            for text, score in zip(out.txts or (), out.scores or (), strict=True)
        ]

    def _recognise(self, crops: list[np.ndarray]) -> list[float]:
        """Recognition confidence of single text-line images (used to compare orientations)."""
        return [score for _, score in self._read_lines(crops)]

    def check_hidden_layer(self, png: bytes, layer: str) -> LayerVerdict:
        """A scan's hidden text layer against OCR of a sample of the image's lines (see layer_check.py)."""
        with Image.open(io.BytesIO(png)) as img:
            image = np.asarray(img.convert("RGB"))

        def detect(array: np.ndarray) -> list[np.ndarray]:
            out = self._engine()(array, use_det=True, use_cls=False, use_rec=False)
            return [] if out.boxes is None else list(out.boxes)

        return check_layer(image, layer, detect, self._read_lines)

    def ocr_image(self, image: Image.Image) -> dict[str, Any]:
        """OCR one page image, upright or not: text in reading order and page attributes."""
        image = image.convert("RGB")
        quads, txts, scores = self._run(image)
        correction, evidence = 0, {}
        if self.detect_rotation and quads:
            verdict = detect_orientation(image, quads, self._recognise, scores)
            turned = verdict.score_turned
            evidence = {
                "sideways_share": round(verdict.sideways_share, 3),
                "score_as_is": round(verdict.score_as_is, 3),
                "score_turned": None if turned is None else round(turned, 3),
            }
            correction = verdict.rotation_correction
            if correction:
                image = rotate_upright(image, correction)
                quads, txts, scores = self._run(image)
        # Skewed scans are levelled first (scan_layout.py): a slanted line's upright box overlaps its neighbours.
        boxes, leveller = level_boxes(quads, [space_after_punctuation(t) for t in txts], image.width, self.layout)
        # Ruling lines in the image make a scanned table's OCR lines into cells, as the text layer's runs.
        h = float(np.median([b.height for b in boxes])) if boxes else 0.0
        rules = find_rules(np.asarray(image.convert("L")), h) if boxes else []
        if leveller.slope:
            rules = [leveller.rule(r) for r in rules]
        budget = LayoutBudget()
        # The one layout pipeline (layout/page_reader.py), with what a scan needs: spreads, letterheads. The layout
        # model's headers and footers are a text layer's only (pdf/page_regions.py): on scans it found one test more
        # on each part of headers_footers for ~130 MB more in the engine's process, past the family's memory bound.
        page = read_page(boxes, rules, image.width, image.height, SCAN_PAGE, budget, params=self.layout)
        text, tables, kept = page.text, page.tables, page.kept
        layout_note = {"layout_note": "; ".join(budget.notes)} if budget.notes else {}
        return {
            **layout_note,
            "text": text,
            "rotation_correction": correction,
            "is_table": bool(tables),
            "mean_score": round(float(np.mean(scores)), 4) if scores else None,
            "boxes": kept,
            "slope": round(leveller.slope, 4),
            "orientation": evidence,
        }

    def ocr_page(self, page: PageInput) -> PageResult:
        """One page: the trusted text layer as is, else OCR of `page.png`; never raises for bad input."""
        start = time.perf_counter()
        result = PageResult(
            source_hash=page.source_hash,
            page_num=page.page_num,
            text=page.text_layer,
            engine=self.name,
            model=self.model,
        )
        trusted = page.text_layer_trusted
        if trusted and page.image_covered and page.png:
            # A layer over a scan may be someone's poor OCR that reads plausibly: check it against ours.
            try:
                verdict = self.check_hidden_layer(page.png, page.text_layer)
                result.extra["layer_check"] = verdict.evidence()
                trusted = not verdict.replace
            except Exception as exc:  # noqa: BLE001 - the check is advice: without it the layer stands
                result.extra["layer_check"] = {"error": f"{type(exc).__name__}: {exc}"}
        if trusted:
            result.extra["source"] = "text_layer"
            # The text layer carries its tables as HTML (layout/table_html.py): that is what makes a table page.
            result.is_table = "<table>" in page.text_layer
        else:
            try:
                if not page.png:
                    raise ValueError("no page image")
                with Image.open(io.BytesIO(page.png)) as img:
                    img.load()
                    ocr = self.ocr_image(img)
                text = ocr.pop("text")
                # OCR that finds nothing where the PDF has text (tiny glyphs on a huge page, say) keeps the
                # untrusted layer rather than an empty page: some text beats none.
                result.text = text if text.strip() or not page.text_layer.strip() else page.text_layer
                if result.text is not text:
                    ocr["source_override"] = "text_layer_kept"
                # Reported in olmOCR's convention (counter-clockwise, PIL's ROTATE_<n>), as the VLM engine does.
                result.rotation_correction = (360 - ocr.pop("rotation_correction")) % 360
                result.is_rotation_valid = result.rotation_correction == 0
                result.is_table = ocr.pop("is_table")
                result.extra.update(source="ocr", rotation_applied=bool(result.rotation_correction), **ocr)
            except Exception as exc:  # noqa: BLE001 - a bad page must not stop the document: fall back, and say so
                result.error = f"{type(exc).__name__}: {exc}"
                result.is_fallback = True
                result.extra["source"] = "text_layer_fallback"
            finally:
                # OCR's tensors are freed on several threads; glibc keeps the holes unless told (runtime/heap.py).
                return_freed_memory()
        result.primary_language = page_language(result.text)
        result.elapsed_s = round(time.perf_counter() - start, 4)
        return result
