"""The recogniser's line text repaired by rules that hold for any scan (engines/cpu/line_text.py)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from ocr_pipeline.engines.cpu.line_text import space_after_punctuation
from ocr_pipeline.engines.cpu.orientation import detect_orientation


@pytest.mark.parametrize(
    ("read", "repaired"),
    [
        ("greet you,and here.We are", "greet you, and here. We are"),
        ("The Hon.Theodore Roosevelt", "The Hon. Theodore Roosevelt"),
        ("said:Then a;b", "said: Then a; b"),
        ("U.S.A. paid 1,000 or 3.5 at 10:30", "U.S.A. paid 1,000 or 3.5 at 10:30"),  # initials and numbers stay
    ],
)
def test_space_after_punctuation(read: str, repaired: str) -> None:
    assert space_after_punctuation(read) == repaired


def _quads(n: int) -> list[np.ndarray]:
    return [np.array([[10, 20 * i], [300, 20 * i], [300, 20 * i + 15], [10, 20 * i + 15]], float) for i in range(n)]


@pytest.mark.parametrize(("first_pass", "recognised"), [(0.97, False), (0.6, True)])
def test_orientation_pass_runs_only_when_the_first_pass_leaves_room_for_a_turn(
    first_pass: float, recognised: bool
) -> None:
    calls: list[int] = []

    def recognise(crops: list[np.ndarray]) -> list[float]:
        calls.append(len(crops))
        return [first_pass] * len(crops)

    verdict = detect_orientation(Image.new("RGB", (320, 200), "white"), _quads(8), recognise, [first_pass] * 8)
    assert verdict.rotation_correction == 0
    assert bool(calls) is recognised and (verdict.score_turned is None) is not recognised
