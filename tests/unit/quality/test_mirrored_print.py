"""Mirrored print, the logic: lines found from the print mask, read as little as the verdict needs, mirrored lines
losing their print and no other; a scripted recogniser stands in for RapidOCR (tests of the real one:
test_near_blank_verdicts.py)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pytest

from ocr_pipeline.quality.mirror_params import MirrorParams
from ocr_pipeline.quality.mirrored_print import MirroredPrint
from ocr_pipeline.quality.print_ink import print_mask
from ocr_pipeline.quality.print_lines import PrintLine, line_window, print_lines
from tests.support.builders import near_blank

PRINT = (0.98, 0.70)  # how honest print reads: (as it is, flipped)
MIRRORED = (0.85, 0.98)  # bleed-through: the recogniser half reads it as it is, and fully flipped
HALF_READ = (0.95, 0.96)  # a mirrored line it reads almost as well as it is
UNREADABLE = (0.30, 0.40)  # handwriting, a script it does not know: poor both ways
Truth = Callable[[PrintLine], tuple[float, float]]


class Scripted:
    """A recogniser that knows each line of one page: it reads a line's window as `truth(line)` says."""

    def __init__(self, grey: np.ndarray, truth: Truth, params: MirrorParams) -> None:
        self.scores: dict[tuple[tuple[int, ...], bytes], float] = {}
        for line in print_lines(print_mask(grey), params):
            top, bottom, left, right = line_window(line, grey.shape, params)
            crop = np.repeat(grey[top:bottom, left:right, None], 3, axis=2)
            as_is, flipped = truth(line)
            self.scores[(crop.shape, crop.tobytes())] = as_is
            self.scores[(crop.shape, np.ascontiguousarray(crop[:, ::-1]).tobytes())] = flipped
        self.calls: list[int] = []  # images per call

    def __call__(self, crops: list[np.ndarray]) -> list[float]:
        self.calls.append(len(crops))
        return [self.scores[(c.shape, c.tobytes())] for c in crops]


@functools.cache
def _faint() -> np.ndarray:
    """FRONT_PAGE as faint print, built once: its lines stand for a page of print or of bleed-through alike."""
    return np.asarray(near_blank.faint_print(120).convert("L"))


def _page(truth: Truth, image: object = None, params: MirrorParams | None = None) -> tuple[MirroredPrint, Scripted]:
    params = params or MirrorParams()
    grey = _faint() if image is None else np.asarray(image.convert("L"))  # type: ignore[attr-defined]
    reader = Scripted(grey, truth, params)
    return MirroredPrint(grey, reader, params), reader


def test_lines_are_found_from_the_print_alone() -> None:
    def lines(image: object) -> list[PrintLine]:
        return print_lines(print_mask(np.asarray(image.convert("L"))), MirrorParams())  # type: ignore[attr-defined]

    page = print_lines(print_mask(_faint()), MirrorParams())
    assert len(page) == 19  # FRONT_PAGE's lines, each joined across the strips' edge
    assert all(len(line.parts) == 2 for line in page)
    assert page == sorted(page, key=lambda line: -line.pixels)
    assert lines(near_blank.specks(60)) == []  # specks are no line
    assert len(lines(near_blank.stamp())) == 2  # the stamp's word and its date
    assert len(print_lines(print_mask(_faint()), MirrorParams(max_lines=5))) == 5


def test_a_page_read_as_print_is_settled_after_one_sample() -> None:
    page, reader = _page(lambda line: PRINT)
    full = page.capacity()
    assert page.capacity_for(full // 2) == full
    assert reader.calls == [4]  # the sample, flipped; no line read well enough flipped to need a second reading
    assert page.capacity_for(full) == full and reader.calls == [4]  # settled: a later answer reads nothing more


def test_mirrored_lines_lose_their_print() -> None:
    page, reader = _page(lambda line: MIRRORED)
    assert page.capacity() > 5000
    assert page.capacity_for(1100) < 1100 - 20  # the invented page no longer fits
    assert page.bleed_through and len(page.mirrored) == len(page.readings)


def test_a_front_with_some_bleed_through_keeps_its_front() -> None:
    # The front's print in the top half of the page, the other side's mirrored lines below it.
    page, _ = _page(lambda line: PRINT if line.parts[0].top < 350 else MIRRORED)
    page.read_all()
    front = [r.line for r in page.readings if r.line.parts[0].top < 350]
    back = [r.line for r in page.readings if r.line.parts[0].top >= 350]
    assert front and back
    assert set(page.mirrored) == set(back)
    alone, _ = _page(lambda line: PRINT)
    assert page.capacity() == alone._capacity_without(back)


def test_unreadable_lines_never_count_as_mirrored() -> None:
    page, _ = _page(lambda line: UNREADABLE)
    page.read_all()
    assert page.mirrored == [] and page.capacity() == page._capacity_without([])
    # Nor on a page of bleed-through: a note in a hand the recogniser cannot read keeps its print.
    page, _ = _page(lambda line: UNREADABLE if line.parts[0].top < 200 else MIRRORED)
    page.read_all()
    assert page.bleed_through
    assert all(line.parts[0].top >= 200 for line in page.mirrored)
    assert any(r.line.parts[0].top < 200 for r in page.readings)


def test_a_half_read_mirrored_line_is_mirrored_only_among_mirrored_neighbours() -> None:
    page, _ = _page(lambda line: HALF_READ)
    page.read_all()
    assert page.mirrored == []  # alone, reading 0.96 flipped against 0.95 is no evidence
    page, _ = _page(lambda line: HALF_READ if line.parts[0].top < 250 else MIRRORED)
    page.read_all()
    assert page.bleed_through and len(page.mirrored) == len(page.readings)


def test_nothing_is_read_when_the_print_outside_the_lines_holds_the_answer() -> None:
    image = near_blank.darkest(near_blank.faint_print(120), near_blank.specks(60))
    page, reader = _page(lambda line: MIRRORED, image)
    outside = page._capacity_without(page.lines)
    assert outside > 0
    assert page.capacity_for(outside + 20) == page.capacity() and reader.calls == []
    assert page.capacity_for(outside + 21) < outside + 1 and reader.calls  # one letter more, and lines are read


def test_reading_stops_once_the_answer_fits_whatever_the_unread_lines_are() -> None:
    # The first lines read are print: once they hold the answer, no more are read.
    page, reader = _page(lambda line: PRINT if line.parts[0].top < 700 else MIRRORED)
    page.capacity_for(400)
    assert sum(reader.calls) < 2 * len(page.lines)


@pytest.mark.parametrize(
    "bad",
    [
        {"margin": 1.5},
        {"min_confidence": 0.0},
        {"sample_lines": 0},
        {"max_lines": 2},
        {"lean_confidence": 0.95},
        {"strip_width": 480.5},
        {"max_height": 4},
        {"row_share": True},
    ],
)
def test_parameters_are_checked(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="MirrorParams"):
        MirrorParams(**bad)  # type: ignore[arg-type]
