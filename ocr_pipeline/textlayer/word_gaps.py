"""Where words break on a text line that carries no space characters: from the line's own letter and word spacing.

Justified and tightly set text (newspapers, small print) often positions each word instead of typing a space, and
pdfium generates a space only where the gap is wide against the font's space width; a tight line keeps word gaps of a
tenth of an em, below any fixed share of the glyph height that letters never reach on a looser page. pdfium's loose
boxes span a glyph's advance, so the gap between two boxes is the extra positioning alone: about zero between the
letters of a word (kerning, tracking), clearly more between words. Each line segment (glyphs between pdfium's line
ends and wide jumps) is measured on its own: its typical letter gap (the median gap with no space between: most
pairs on a line are letters of one word) and, where pdfium did place spaces, its typical word gap. A gap counts as
a word break when it stands out from the letter gap by half the distance to the word gap, or, on a line with no
space at all, by a share of the glyph height no kerning reaches.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ocr_pipeline.textlayer.textlayer_params import TEXT_LAYER_PARAMS, TextLayerParams


class _Glyph(Protocol):
    text: str
    box: tuple[float, float, float, float] | None
    vertical: bool


@dataclass
class _Segment:
    """One stretch of a line: the glyph indices after its first, and its gaps (glyph heights) with and without a
    space character between."""

    members: list[int] = field(default_factory=list)
    letter_gaps: list[float] = field(default_factory=list)
    word_gaps: list[float] = field(default_factory=list)


def _segments(glyphs: Sequence[_Glyph], run_gap: float) -> list[_Segment]:
    """The page's line stretches: cut at line ends and at jumps (backwards, to another row, past a run gap)."""
    segments = [_Segment()]
    last: tuple[float, float, float, float] | None = None
    spaced = False
    for k, g in enumerate(glyphs):
        if g.text == "\n":
            segments.append(_Segment())
            last = None
            continue
        if g.box is None or g.vertical:
            spaced = spaced or g.text.isspace()
            continue
        if last is not None:
            left, bottom, _, top = g.box
            h = top - bottom if top - bottom > last[3] - last[1] else last[3] - last[1]
            h = h if h > 1e-3 else 1e-3
            gap = left - last[2]
            overlap = (top if top < last[3] else last[3]) - (bottom if bottom > last[1] else last[1])
            if gap > run_gap * h or gap < -0.5 * h or overlap <= 0.3 * h:  # inline min/max: this runs per glyph
                segments.append(_Segment())
            else:
                seg = segments[-1]
                (seg.word_gaps if spaced else seg.letter_gaps).append(gap / h)
                seg.members.append(k)
        last, spaced = g.box, False
    return segments


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def word_gap_limits(glyphs: Sequence[_Glyph], params: TextLayerParams = TEXT_LAYER_PARAMS) -> dict[int, float]:
    """For a glyph index, the gap before it (in glyph heights) above which it starts a new word; the fixed
    word_gap_heights elsewhere."""
    fixed = params.word_gap_heights
    limits: dict[int, float] = {}
    for seg in _segments(glyphs, params.run_gap_heights):
        letter_gaps, word_gaps = seg.letter_gaps, seg.word_gaps
        if len(letter_gaps) < params.min_letter_gaps:
            continue
        letter = _median(letter_gaps)
        # Glyph widths that disagree with the drawn advance (a font's wrong width table) scatter the letter gaps: a
        # break must stand out of that scatter too, and reach near the narrowest gap pdfium did give a space.
        scatter = params.noise_spreads * _median([abs(g - letter) for g in letter_gaps])
        if word_gaps:
            standout = max((_median(word_gaps) - letter) / 2, params.spaced_share * min(word_gaps) - letter)
        else:
            standout = _lone_standout(sorted(letter_gaps), letter, params)
        standout = max(standout, scatter)
        # The fixed limit still caps the break, unless the line's letters themselves sit that far apart (tracking).
        limit = min(
            letter + max(standout, params.min_standout_heights), max(fixed, letter + params.min_standout_heights)
        )
        for k in seg.members:
            limits[k] = limit
    return limits


def _lone_standout(gaps: list[float], letter: float, params: TextLayerParams) -> float:
    """How far above the letter gap word breaks start on a line without spaces: the cut between its two groups of
    gaps (the split of the sorted gaps with the largest between-group variance), or infinity when none is clear."""
    n = len(gaps)
    if n < params.min_lone_gaps:
        return float("inf")
    prefix = [0.0]
    for g in gaps:
        prefix.append(prefix[-1] + g)
    best, cut = 0.0, 0
    for i in range(n // 2 + 1, n):  # word gaps are the fewer: the upper group is under half the pairs
        low_mean, high_mean = prefix[i] / i, (prefix[n] - prefix[i]) / (n - i)
        spread = i * (n - i) * (high_mean - low_mean) ** 2
        if spread > best:
            best, cut = spread, i
    if not cut:
        return float("inf")
    low_top, high = gaps[cut - 1], gaps[cut]
    # One gap standing out alone may be one glyph's wrong width: it must stand out twice as far.
    jump = params.min_jump_heights * (2 if cut == n - 1 else 1)
    if high - low_top < jump or high - letter < params.lone_word_gap_heights:
        return float("inf")
    return (low_top + high) / 2 - letter
