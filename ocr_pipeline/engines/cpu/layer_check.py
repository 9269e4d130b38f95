"""A hidden text layer over a scanned page, checked against the engine's own OCR of a sample of the page's lines.

A scan's invisible OCR layer can pass every check of the layer alone (plausible words, right letter mix) and still
be wrong ("Karthv and saline matter" for "Earthy and saline matter"). Reading a few lines of the image costs a
fraction of a page's OCR; when the lines the engine reads confidently are not found in the layer, the layer
reads worse than the engine would, and the page is OCR'd instead.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz

# Lines read from the image: enough words to judge (a dozen lines hold 100 or more), few enough to stay cheap.
SAMPLE_LINES = 12
# Only lines the recogniser is sure of are evidence against the layer.
MIN_LINE_SCORE = 0.85
# Fewer confident words than this decide nothing: the layer is kept.
MIN_SAMPLE_WORDS = 15
# Lines of fewer words than this (a page number, a lone heading word) match anywhere, so say nothing.
MIN_LINE_WORDS = 3
# How closely the layer must hold the confidently read lines (0..1): good layers score 0.95 and more, OCR slips
# included; a layer with one word in five wrong scores about 0.85.
MIN_AGREEMENT = 0.88
# Pixels added around each detected line before it is read (detection boxes hug the glyphs).
PAD_PX = 3

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class LayerVerdict:
    """Whether to replace the layer, and the evidence: word agreement (None: too few words) and words compared."""

    replace: bool
    agreement: float | None
    words: int

    def evidence(self) -> dict[str, float | int | bool | None]:
        """The verdict as a result's extra fields."""
        return {"replaced": self.replace, "agreement": self.agreement, "words": self.words}


def words_of(text: str) -> list[str]:
    """Lower-cased words of two or more letters or digits (single characters match anything, so say nothing)."""
    return [w for w in _WORD.findall(unicodedata.normalize("NFC", text).lower()) if len(w) >= 2]


def sample_indices(n: int, k: int = SAMPLE_LINES) -> list[int]:
    """`k` indices spread evenly over `n` (all of them when n <= k): the sample covers the whole page."""
    if n <= k:
        return list(range(n))
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})


def line_crops(image: np.ndarray, quads: Sequence[np.ndarray], indices: Sequence[int]) -> list[np.ndarray]:
    """The image area of each chosen detected line (its quad's bounding box, padded)."""
    h, w = image.shape[:2]
    crops = []
    for i in indices:
        q = np.asarray(quads[i])
        x0, y0 = max(int(q[:, 0].min()) - PAD_PX, 0), max(int(q[:, 1].min()) - PAD_PX, 0)
        x1, y1 = min(int(q[:, 0].max()) + PAD_PX, w), min(int(q[:, 1].max()) + PAD_PX, h)
        if x1 - x0 > 4 and y1 - y0 > 4:
            crops.append(image[y0:y1, x0:x1])
    return crops


def judge_layer(layer: str, readings: Sequence[tuple[str, float]]) -> LayerVerdict:
    """Compare the layer with OCR readings (text, confidence) of sampled lines: replace it when they disagree.

    Each confident line is matched against its best-fitting stretch of the layer (the layer's order need not
    be the image's); agreement is the word-weighted mean of those matches.
    """
    target = " ".join(words_of(layer))
    matched, words = 0.0, 0
    for text, score in readings:
        line = words_of(text)
        if score < MIN_LINE_SCORE or len(line) < MIN_LINE_WORDS:
            continue
        matched += len(line) * fuzz.partial_ratio(" ".join(line), target) / 100
        words += len(line)
    if words < MIN_SAMPLE_WORDS:
        return LayerVerdict(False, None, words)
    agreement = matched / words
    return LayerVerdict(agreement < MIN_AGREEMENT, round(agreement, 4), words)


def check_layer(
    image: np.ndarray,
    layer: str,
    detect: Callable[[np.ndarray], Sequence[np.ndarray]],
    read: Callable[[list[np.ndarray]], list[tuple[str, float]]],
) -> LayerVerdict:
    """Detect the page's lines, read a sample of them with `read` (one batch), and judge the layer against them."""
    quads = detect(image)
    crops = line_crops(image, quads, sample_indices(len(quads)))
    return judge_layer(layer, read(crops))
