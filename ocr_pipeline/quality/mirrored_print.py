"""Mirrored print: bleed-through from the other side of the sheet is not print, however dark and sharp it is.

The print measure (print_ink) counts dark or sharp strokes as print. The front's text showing through the back of
a sheet can be both (pressed hard, thin paper, scanned at high contrast), and a model that answers such a scan with
a page of invented prose then passes. What it always is, is mirrored. A text recogniser says so: it reads a line
of bleed-through flipped left-right at 0.99 confidence (the median line) and as it is at 0.5-0.97, honest print
the other way round; handwriting and scripts it cannot read score low both ways and are never called mirrored.

Reading costs about 20 ms of CPU a line, so the check reads as little as the verdict needs. Lines come from the
print mask (print_lines), the most print first. Before reading, it asks whether leaving out every line could bring
the page's capacity under the answer's letters at all; then it reads the lines a few at a time (flipped first: a
line that reads poorly flipped needs no second reading) and stops as soon as the verdict is settled: the answer
fits even if every unread line were mirrored, or it no longer fits. A page none of whose first `sample_lines`
lines reads mirrored is taken to have none. A mirrored line loses its print; every other line (unread, unclear,
read as it is) keeps it, so a real page with some bleed-through keeps its front's capacity. The thresholds are
MirrorParams' (quality/mirror_params.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ocr_pipeline.quality.mirror_params import MirrorParams
from ocr_pipeline.quality.print_ink import LETTER_SLACK, REFERENCE_SIDE, mask_ink, print_mask
from ocr_pipeline.quality.print_lines import PrintLine, line_window, print_lines

# Recognise a batch of line images (RGB arrays); returns one confidence (0..1) per image.
Recognise = Callable[[list[np.ndarray]], list[float]]


@dataclass(frozen=True)
class LineReading:
    """How well one line read flipped left-right and as it is (None: not read, it read too poorly flipped)."""

    line: PrintLine
    flipped: float
    as_is: float | None

    def clearly_mirrored(self, params: MirrorParams) -> bool:
        """Reads well flipped, and clearly better than as it is."""
        return (
            self.as_is is not None
            and self.flipped >= params.min_confidence
            and self.flipped >= self.as_is + params.margin
        )

    def leaning_mirrored(self, params: MirrorParams) -> bool:
        """Reads fairly well flipped, and no worse than as it is (mirrored on a page of bleed-through)."""
        return self.as_is is not None and self.flipped >= params.lean_confidence and self.flipped >= self.as_is


class MirroredPrint:
    """One page's print, its lines judged mirrored or not as far as the answers asked of it need."""

    def __init__(self, grey: np.ndarray, recognise: Recognise, params: MirrorParams | None = None) -> None:
        self.params = params or MirrorParams()
        self.grey = grey
        self.scale = max(grey.shape) / REFERENCE_SIDE
        self.recognise = recognise
        self.mask = print_mask(grey)
        self.lines = print_lines(self.mask, self.params, self.scale)
        self.readings: list[LineReading] = []
        self._settled = False  # no line of the sample read mirrored: nothing more is read on this page

    @property
    def bleed_through(self) -> bool:
        """Whether the lines read so far show a page of bleed-through (MirrorParams.page_share of them mirrored)."""
        clear = sum(r.clearly_mirrored(self.params) for r in self.readings)
        return clear > 0 and clear >= self.params.page_share * len(self.readings)

    @property
    def mirrored(self) -> list[PrintLine]:
        """The lines judged mirrored so far."""
        if self.bleed_through:
            return [r.line for r in self.readings if r.leaning_mirrored(self.params)]
        return [r.line for r in self.readings if r.clearly_mirrored(self.params)]

    def capacity(self) -> int:
        """Letters the page's print can hold, the mirrored lines found so far left out."""
        return self._capacity_without(self.mirrored)

    def capacity_for(self, letters: int) -> int:
        """The page's capacity once enough lines are read to tell whether `letters` letters fit it (LETTER_SLACK)."""
        need = letters - LETTER_SLACK  # the answer fits while the capacity is at least this
        unread = self.lines[len(self.readings) :]
        if self._settled or not unread or self._capacity_without(self.mirrored + unread) >= need:
            return self.capacity()
        while unread:
            batch, unread = unread[: self.params.batch_lines], unread[self.params.batch_lines :]
            self._read(batch)
            if len(self.readings) >= self.params.sample_lines and not self.mirrored:
                self._settled = True
                break
            if self.capacity() < need or self._capacity_without(self.mirrored + unread) >= need:
                break
        return self.capacity()

    def read_all(self) -> list[LineReading]:
        """Read every line not read yet, sample or not (the benchmark's full judgement of a page)."""
        unread = self.lines[len(self.readings) :]
        for start in range(0, len(unread), self.params.batch_lines):
            self._read(unread[start : start + self.params.batch_lines])
        return self.readings

    def _capacity_without(self, lines: Sequence[PrintLine]) -> int:
        if not lines:
            return mask_ink(self.mask, self.scale).capacity
        kept = self.mask.copy()
        for line in lines:
            for part in line.parts:
                kept[part.top : part.bottom, part.left : part.right] = False
        return mask_ink(kept, self.scale).capacity

    def _read(self, lines: list[PrintLine]) -> None:
        """Read lines flipped left-right, then as they are where flipped they read well enough to be mirrored."""
        flipped = self.recognise([np.ascontiguousarray(self._crop(line)[:, ::-1]) for line in lines])
        self.readings.extend(LineReading(line, score, None) for line, score in zip(lines, flipped, strict=True))
        # A line needs min_confidence flipped to be mirrored, lean_confidence on a page of bleed-through: once the
        # page shows itself to be one, the lines read before it did get their second reading too.
        while True:
            bar = self.params.lean_confidence if self.bleed_through else self.params.min_confidence
            pending = [i for i, r in enumerate(self.readings) if r.as_is is None and r.flipped >= bar]
            if not pending:
                return
            scores = self.recognise([self._crop(self.readings[i].line) for i in pending])
            for i, score in zip(pending, scores, strict=True):
                self.readings[i] = replace(self.readings[i], as_is=score)

    def _crop(self, line: PrintLine) -> np.ndarray:
        """The line's window of the page (print_lines.line_window) as an RGB array, as the recogniser takes it."""
        top, bottom, left, right = line_window(line, self.grey.shape, self.params)
        return np.repeat(self.grey[top:bottom, left:right, None], 3, axis=2)
