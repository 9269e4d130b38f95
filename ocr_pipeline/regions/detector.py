"""Page headers and footers found by a layout model: PP-PicoDet trained on CDLA, shipped in this package.

The model (layout_cdla.onnx, see MODEL.md for its origin, licence and checksum) takes a page image resized to
608 x 800 and gives, on four grids (strides 8, 16, 32 and 64 pixels), a score per class and a box for each cell as
distances to its four sides, each a distribution over eight bins (the GFL head). Only the two furniture classes are
decoded: a cell counts when its header or footer score reaches the threshold; its distances are the distributions'
expected values; overlapping boxes of a class keep the best (non-maximum suppression). Nothing is downloaded: a
missing or altered model file is an error.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
from PIL import Image

from ocr_pipeline.layout.boxes import Box

log = logging.getLogger(__name__)
MODEL_FILE = "layout_cdla.onnx"
INPUT_W, INPUT_H = 608, 800
STRIDES = (8, 16, 32, 64)
BINS = 8
FURNITURE = ("header", "footer")
# Chosen on the tuning part of the olmOCR-Bench history sets (docs/decisions.md): the lowest threshold at which
# no tuning page lost a test; regions below it added false furniture on multi-column pages.
MIN_SCORE = 0.8
IOU = 0.5
_MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
_STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


@dataclass(frozen=True)
class Region:
    """A detected region in the image's pixels: its class, its score (0 to 1) and its corners."""

    kind: str
    score: float
    x0: float
    y0: float
    x1: float
    y1: float


class RegionDetector:
    """The shipped layout model, one onnxruntime session (its own thread count), safe to call from threads."""

    def __init__(self, threads: int = 2) -> None:
        # Imported when a detector is made, not at start-up: every process that reads PDFs imports this module, and
        # the VLM path never lays a page out.
        import onnxruntime as ort

        options = ort.SessionOptions()
        # Two threads halve a page's wait (0.14 -> 0.09 s on 2 cores) for the same CPU time; without spinning, an
        # idle thread does not burn a core the engine or the next page could use.
        options.intra_op_num_threads = max(1, min(threads, os.cpu_count() or 1))
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # One input shape, but the memory-pattern planner holds ~50 MB more than the run needs (measured: peak
        # 205 -> 158 MB with it off, same speed).
        options.enable_mem_pattern = False
        model = resources.files("ocr_pipeline.regions").joinpath(MODEL_FILE).read_bytes()
        self.session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        labels = self.session.get_modelmeta().custom_metadata_map.get("character", "").split("\n")
        self.classes = [labels.index(name) for name in FURNITURE]
        self.input = self.session.get_inputs()[0].name
        self.lock = threading.Lock()

    def furniture(self, image: Image.Image | np.ndarray, min_score: float = MIN_SCORE) -> list[Region]:
        """Header and footer regions of a page image (PIL, or RGB pixels height x width x 3), in its own pixels."""
        # Not at start-up either (see __init__): only a page being laid out needs OpenCV.
        import cv2

        rgb = np.asarray(image.convert("RGB")) if isinstance(image, Image.Image) else image
        height, width = rgb.shape[:2]
        # OpenCV's bilinear resize (no antialiasing), as the model was measured with.
        pixels = cv2.resize(rgb, (INPUT_W, INPUT_H), interpolation=cv2.INTER_LINEAR)
        x = ((pixels.astype(np.float32) / 255.0 - _MEAN) / _STD).transpose(2, 0, 1)[None].astype(np.float32)
        with self.lock:
            outputs = self.session.run(None, {self.input: x})
        found = _decode(outputs, self.classes, min_score)
        sx, sy = width / INPUT_W, height / INPUT_H
        return [
            Region(FURNITURE[c], s, x0 * sx, y0 * sy, x1 * sx, y1 * sy)
            for c, picked in found.items()
            for s, (x0, y0, x1, y1) in picked
        ]


def _decode(
    outputs: list[np.ndarray], classes: list[int], min_score: float
) -> dict[int, list[tuple[float, tuple[float, float, float, float]]]]:
    """Per furniture class index (into FURNITURE): (score, box in input pixels) after non-maximum suppression."""
    levels = len(STRIDES)
    scores_by_class: dict[int, list[float]] = {i: [] for i in range(len(classes))}
    boxes_by_class: dict[int, list[np.ndarray]] = {i: [] for i in range(len(classes))}
    for level, stride in enumerate(STRIDES):
        scores, dists = outputs[level][0], outputs[level + levels][0]
        cols = -(-INPUT_W // stride)
        for i, c in enumerate(classes):
            cells = np.nonzero(scores[:, c] >= min_score)[0]
            if not len(cells):
                continue
            bins = dists[cells].reshape(-1, 4, BINS)
            bins = np.exp(bins - bins.max(axis=2, keepdims=True))
            sides = (bins / bins.sum(axis=2, keepdims=True)) @ np.arange(BINS, dtype=np.float32) * stride
            cx = (cells % cols + 0.5) * stride
            cy = (cells // cols + 0.5) * stride
            corners = np.stack([cx - sides[:, 0], cy - sides[:, 1], cx + sides[:, 2], cy + sides[:, 3]], axis=1)
            boxes_by_class[i].extend(corners.clip(0, [INPUT_W, INPUT_H, INPUT_W, INPUT_H]))
            scores_by_class[i].extend(scores[cells, c].tolist())
    return {i: _suppress(scores_by_class[i], boxes_by_class[i]) for i in scores_by_class if scores_by_class[i]}


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return float(inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter))


def _suppress(
    scores: list[float], boxes: list[np.ndarray], limit: int = 20
) -> list[tuple[float, tuple[float, float, float, float]]]:
    """The best-scoring boxes, each overlapping no better one by more than IOU (at most `limit`)."""
    kept: list[tuple[float, np.ndarray]] = []
    for k in np.argsort(scores)[::-1][:200]:
        if all(_iou(boxes[k], other) <= IOU for _, other in kept):
            kept.append((scores[k], boxes[k]))
            if len(kept) >= limit:
                break
    return [(float(s), (float(b[0]), float(b[1]), float(b[2]), float(b[3]))) for s, b in kept]


@cache
def shipped_detector() -> RegionDetector:
    """The process's one detector (the model loads once, ~0.1 s)."""
    return RegionDetector()


def furniture_boxes(image: Image.Image | np.ndarray, scale: float = 1.0) -> list[Box]:
    """Header and footer regions of a page image as layout boxes (text: the class), in the image's pixels divided
    by `scale` (pixels per point for a rendered PDF page). None when the model cannot run (said in the log: the
    rules still judge the page). Whether to ask it at all is the caller's switch (ReadingParams.layout_model)."""
    try:
        regions = shipped_detector().furniture(image)
    except MemoryError:
        raise  # the document's: the PDF sandbox rejects it as memory_exceeded
    except Exception as exc:  # noqa: BLE001 - a model that cannot run leaves the page to the rules
        log.warning("layout model failed on a page (%s: %s): furniture by the rules alone", type(exc).__name__, exc)
        return []
    return [Box(r.x0 / scale, r.y0 / scale, r.x1 / scale, r.y1 / scale, r.kind) for r in regions]
