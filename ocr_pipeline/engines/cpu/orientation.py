"""Page orientation for the CPU engine: find pages scanned at 90/180/270 degrees, cheaply.

Method (no extra model, two small recognition batches at most):
1. The first OCR pass on the page as given already yields text boxes. If most of the text area lies
   in boxes that are much taller than wide, the page is sideways (90 or 270); otherwise it is
   upright or upside down (0 or 180).
2. The few largest boxes are cropped and recognised twice, once turned each way of the candidate
   pair (sideways: 90 clockwise or 90 counter-clockwise; upright: as is or 180). The recogniser's
   mean confidence is clearly higher for upright text, so the better turn wins. A 180 verdict needs
   a margin, because a wrongly turned page costs a second OCR pass and is worse than none.
3. Confidences never exceed 1, so when the first pass already read those boxes, as the page is, at
   1 - FLIP_MARGIN or better, no turned reading could win by the margin: the page is upright, and the
   two recognition batches (a tenth of a dense page's time: its largest boxes are its longest lines)
   are skipped.
`rotation_correction` is the clockwise turn (0/90/180/270) that makes the page upright.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image

# A box this much taller than wide is a line of sideways text.
TALL_RATIO = 1.5
# How many of the largest boxes are re-recognised to compare turns.
SAMPLE_BOXES = 6
# A 180 verdict needs the turned crops to score this much higher on average.
FLIP_MARGIN = 0.08
# First-pass confidence of the sampled boxes at which no 180 turn can win by FLIP_MARGIN.
UPRIGHT_SCORE = 1 - FLIP_MARGIN

# Recognise a batch of line images; returns one confidence (0..1) per image.
Recognise = Callable[[list[np.ndarray]], list[float]]


@dataclass(frozen=True)
class Orientation:
    """The verdict: clockwise degrees to turn the page upright, and the evidence."""

    rotation_correction: int
    sideways_share: float
    score_as_is: float
    score_turned: float | None  # None: not needed, the first pass read the page confidently as it is


def _bbox(quad: np.ndarray) -> tuple[int, int, int, int]:
    xs, ys = quad[:, 0], quad[:, 1]
    return int(xs.min()), int(ys.min()), int(np.ceil(xs.max())), int(np.ceil(ys.max()))


def sideways_share(quads: Sequence[np.ndarray]) -> float:
    """Share of the text area (box area) held by boxes much taller than wide."""
    tall = total = 0.0
    for q in quads:
        x0, y0, x1, y1 = _bbox(np.asarray(q))
        w, h = max(x1 - x0, 1), max(y1 - y0, 1)
        total += w * h
        if h >= TALL_RATIO * w:
            tall += w * h
    return tall / total if total else 0.0


def _sample(quads: Sequence[np.ndarray]) -> list[int]:
    """Indices of the SAMPLE_BOXES largest boxes (by longest side) that have an area."""
    boxes = [_bbox(np.asarray(q)) for q in quads]
    order = sorted(range(len(boxes)), key=lambda i: -max(boxes[i][2] - boxes[i][0], boxes[i][3] - boxes[i][1]))
    return [i for i in order if boxes[i][2] > boxes[i][0] and boxes[i][3] > boxes[i][1]][:SAMPLE_BOXES]


def _mean_score(recognise: Recognise, crops: list[Image.Image], turn_cw: int) -> float:
    # PIL rotates counter-clockwise for positive angles, hence the minus sign.
    imgs = [np.asarray(c.rotate(-turn_cw, expand=True).convert("RGB")) for c in crops]
    scores = recognise(imgs)
    return float(np.mean(scores)) if scores else 0.0


def detect_orientation(
    image: Image.Image,
    quads: Sequence[np.ndarray],
    recognise: Recognise,
    scores: Sequence[float] | None = None,
) -> Orientation:
    """Decide the clockwise correction for a page from its first-pass text boxes (and their confidences)."""
    share = sideways_share(quads)
    sample = _sample(quads)
    if not sample:
        return Orientation(0, share, 0.0, 0.0)
    if share <= 0.5 and scores is not None:
        first = float(np.mean([scores[i] for i in sample]))
        if first >= UPRIGHT_SCORE:
            return Orientation(0, share, first, None)
    crops = [image.crop(_bbox(np.asarray(quads[i]))) for i in sample]
    if share > 0.5:
        # Sideways: either turn may be right, so no margin; the crops are tall, so turn them.
        cw = _mean_score(recognise, crops, 90)
        ccw = _mean_score(recognise, crops, 270)
        return Orientation(90 if cw >= ccw else 270, share, cw, ccw)
    as_is = _mean_score(recognise, crops, 0)
    turned = _mean_score(recognise, crops, 180)
    return Orientation(180 if turned > as_is + FLIP_MARGIN else 0, share, as_is, turned)


def rotate_upright(image: Image.Image, rotation_correction: int) -> Image.Image:
    """Turn `image` clockwise by `rotation_correction` degrees."""
    if rotation_correction % 360 == 0:
        return image
    return image.rotate(-rotation_correction, expand=True, fillcolor="white")
