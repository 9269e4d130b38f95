"""The thresholds of the mirrored-print check (quality/mirrored_print.py), in one frozen set passed in.

Lengths are in pixels of a page rendered at print_ink.REFERENCE_SIDE (1288) on its long side and scaled to the
image. The confidences were chosen on the tests' near-blank backs (414 lines of bleed-through) against the 1,764
lines of the 53 old scans, each read both ways, and checked on every real page of the benchmark data
(benchmarks/quality/bench_mirrored_print.py); docs/quality-guards.md has the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class MirrorParams:
    """How lines of print are found and when one counts as mirrored (bleed-through from the sheet's other side).

    min_confidence: a line reads as mirrored only if the recogniser reads it flipped left-right at least this well
        (0-1). Bleed-through reads 0.99 flipped (the median line); handwriting and scripts the recogniser does not
        know (Arabic, say) read far lower either way, so they never count.
    margin: ... and at least this much better flipped than as it is. Bleed-through reads 0.5-0.97 as it is (the
        recogniser finds letters in mirrored ones), honest print up to 0.98 flipped where it reads better still as
        it is (math): the margin keeps a line that reads about as well both ways (digits, brackets) as print. Of
        the old scans' lines, 4 pass both bars, at most 2 on one page.
    page_share: a page where at least this share of the lines read so far reads mirrored (by min_confidence and
        margin) is a page of bleed-through. There a line counts as mirrored once it reads flipped at least
        lean_confidence and no worse than as it is: a mirrored line the recogniser half reads as it is (0.95 against
        0.96) must not keep its print when its neighbours show what the page is. No real page comes near: at most
        2 of a page's 25 lines.
    lean_confidence: see page_share. Honest print on such a page (a stamp, a note) reads better as it is.
    sample_lines: lines read before a page with none mirrored among them is taken to have none: they are its
        lines with the most print, so a page whose own print is darker than its bleed-through keeps its capacity.
    batch_lines: lines recognised in one call (a recognition batch is shared out over the recogniser's sessions).
    max_lines: lines read at most on one page; lines past it keep their print (bounds the cost of a dense page).
    strip_width: lines are found in vertical strips this wide, so that a skewed line or two columns side by side
        still make separate lines.
    row_share: a row of a strip belongs to a line when it holds at least this share of the print of the strip's
        busiest rows (its 90th percentile), so ascenders, descenders and a little skew do not join two lines.
    rule_share: a column of a strip holding print in more than this share of its rows is a rule or the scan's edge,
        left out when rows are counted.
    min_height, max_height: a line is this many pixels tall, at least and at most (8-60: body text to a headline).
    min_width: a line at least this many times as wide as it is tall (shorter runs: specks, a page number).
    crop_ratio: the image read of a line: a window at its middle at most this many times as wide as tall. RapidOCR
        pads every line image to 320 x 48, so a window narrower than 6.67:1 costs the same and reads less.
    """

    min_confidence: float = 0.9
    margin: float = 0.08
    page_share: float = 0.5
    lean_confidence: float = 0.8
    sample_lines: int = 4
    batch_lines: int = 4
    max_lines: int = 64
    strip_width: int = 480
    row_share: float = 0.15
    rule_share: float = 0.5
    min_height: int = 8
    max_height: int = 60
    min_width: float = 3.0
    crop_ratio: float = 6.5

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"MirrorParams.{f.name} must be a positive number, not {value!r}")
        for name in ("min_confidence", "margin", "page_share", "lean_confidence", "row_share", "rule_share"):
            if getattr(self, name) >= 1:
                raise ValueError(f"MirrorParams.{name} must be below 1, not {getattr(self, name)!r}")
        for name in ("sample_lines", "batch_lines", "max_lines", "strip_width", "min_height", "max_height"):
            if not isinstance(getattr(self, name), int):
                raise ValueError(f"MirrorParams.{name} must be a whole number, not {getattr(self, name)!r}")
        if self.max_height < self.min_height:
            raise ValueError(f"MirrorParams.max_height {self.max_height} is below min_height {self.min_height}")
        if self.lean_confidence > self.min_confidence:
            raise ValueError(f"MirrorParams.lean_confidence {self.lean_confidence} is above min_confidence")
        if self.max_lines < self.sample_lines:
            raise ValueError(f"MirrorParams.max_lines {self.max_lines} is below sample_lines {self.sample_lines}")
