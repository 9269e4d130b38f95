"""Drop capitals: a paragraph's first letter set large beside its first lines, joined back to its word."""

from __future__ import annotations

import statistics

from ocr_pipeline.layout.boxes import Box
from ocr_pipeline.layout.budget import LayoutBudget

# A drop capital's first line starts at most this share of the capital's (loose) height below its top.
DROP_CAP_REACH = 0.3


def join_drop_caps(runs: list[Box], budget: LayoutBudget | None = None) -> list[Box]:
    """Join a drop capital (one or two big letters beside the top of a paragraph) to the first line's text."""
    if len(runs) < 3:
        return runs
    budget = budget or LayoutBudget()
    h = statistics.median(b.height for b in runs)
    out = list(runs)
    for cap in runs:
        text = cap.text.strip()
        if not (0 < len(text) <= 2 and text[0].isalpha() and cap.height >= 1.8 * h):
            continue
        budget.charge(3 * len(out))
        if not any(b is cap for b in out):  # already joined to another capital's line
            continue
        beside = [
            k
            for k, b in enumerate(out)
            if b is not cap
            and b.height < 1.8 * h
            and -0.25 * h <= b.x0 - cap.x1 < 2 * h  # a capital's advance may reach under its line's first letter
            # A large letter's loose box rises well above its ink: the first line may start a third of it lower.
            and cap.y0 - h <= b.y0 <= cap.y0 + max(h, DROP_CAP_REACH * cap.height)
        ]
        if not beside:
            continue
        k = min(beside, key=lambda k: (out[k].y0, out[k].x0))
        first = out[k]
        out[k] = Box(first.x0, first.y0, first.x1, first.y1, text + first.text.lstrip())
        out = [b for b in out if b is not cap]
    return out
