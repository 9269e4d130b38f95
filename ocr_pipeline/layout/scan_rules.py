"""Ruling lines found in a page image, so the OCR'd lines of a ruled table on a scan become HTML cells.

No model: a ruling line is a run of dark pixels far longer than any glyph stroke, found row by row (horizontal
rules) and column by column (vertical ones) with numpy, then merged across the few pixels of its thickness. The
rules are handed to layout/table_html.py with the OCR boxes, the same geometry the text layer's tables go through.
"""

from __future__ import annotations

import numpy as np

from ocr_pipeline.layout.boxes import Rule

# Pixels darker than this (0-255 grey) are ink; scans are dark text on a light page.
INK_LEVEL = 140
# A horizontal rule is at least this many text heights long (a dash or an underlined word is shorter);
# a vertical one at least this many (a glyph's stem spans about one).
MIN_HORIZONTAL_HEIGHTS, MIN_VERTICAL_HEIGHTS = 4.0, 2.0
# A "rule" thicker than this many text heights is a filled area (a photo, a black box): not a rule.
MAX_THICKNESS_HEIGHTS = 0.5
# More rules than this is a drawing or a halftone picture, where no table can be read.
MAX_RULES = 300
# Long ink runs (pixel rows of rules, a few per rule) beyond this many: a picture, not ruling.
MAX_RUNS = 3000


def _long_runs(ink: np.ndarray, min_len: int) -> list[tuple[int, int, int]]:
    """(row, start, end) of every run of ink at least `min_len` pixels long, row by row."""
    edges = np.diff(np.pad(ink, ((0, 0), (1, 1))).astype(np.int8), axis=1)
    rows, starts = np.nonzero(edges == 1)
    _, ends = np.nonzero(edges == -1)  # row-major order: the i-th end closes the i-th start
    keep = ends - starts >= min_len
    return list(zip(rows[keep].tolist(), starts[keep].tolist(), ends[keep].tolist(), strict=True))


def _merge(runs: list[tuple[int, int, int]], max_thickness: float) -> list[tuple[int, int, int, int]]:
    """Runs on adjacent rows that overlap along the line, as (first row, last row, start, end) bands."""
    bands: list[list[int]] = []
    for row, start, end in runs:
        for band in bands:
            if row - band[1] <= 1 and min(end, band[3]) - max(start, band[2]) > 0.5 * (end - start):
                band[1], band[2], band[3] = row, min(start, band[2]), max(end, band[3])
                break
        else:
            bands.append([row, row, start, end])
    return [(a, b, s, e) for a, b, s, e in bands if b - a + 1 <= max_thickness]


def find_rules(gray: np.ndarray, text_height: float) -> list[Rule]:
    """Horizontal and vertical ruling lines of a grey page image, in its pixel coordinates (y grows downwards)."""
    h = max(text_height, 4.0)
    ink = gray < INK_LEVEL
    max_thickness = max(3.0, MAX_THICKNESS_HEIGHTS * h)
    across, down = _long_runs(ink, int(MIN_HORIZONTAL_HEIGHTS * h)), _long_runs(ink.T, int(MIN_VERTICAL_HEIGHTS * h))
    if len(across) + len(down) > MAX_RUNS:  # a photo or a dark area: merging would cost more than it could find
        return []
    rules = [Rule(float(s), float(a), float(e), float(b + 1)) for a, b, s, e in _merge(across, max_thickness)]
    rules += [Rule(float(a), float(s), float(b + 1), float(e)) for a, b, s, e in _merge(down, max_thickness)]
    return rules if len(rules) <= MAX_RULES else []
