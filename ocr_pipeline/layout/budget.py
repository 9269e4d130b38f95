"""What one page's layout may cost, and the bounds that fired on it: the input controls every size the layout sees.

A page's boxes come from its PDF (text runs, anywhere the document puts them) or from an OCR detector, so their
number, their extents and their heights are the input's. The layout code's loops over them (column cuts, gutter
bins, crossing boxes, insets, footnotes, formulas, table rows) are charged to a `LayoutBudget`: a count of box
visits and a clock. Past either bound, `charge` raises `BudgetSpent`, and the caller that owns the region reads it
in the simple reading order (lines top to bottom, each left to right) instead; what fired is noted on the page
(its row's `render_note`). Ordinary pages spend a few thousand visits (half a million at most) and a tenth of a
second: the bounds fire only where the input would otherwise take minutes or gigabytes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

# Box visits one page's layout may make (each loop over a region's boxes counts its boxes). Of the 875 pages of
# ../shared/data none spends more than 470,000 (the median 5,600; docs/decisions.md); a visit costs 50-200 ns.
MAX_WORK = 20_000_000
# Seconds one page's layout may take, whatever the work count says (a slow or loaded machine).
PAGE_SECONDS = 4.0
# Bins one gutter search may allocate (columns.gutter_candidates): a page 14,400 points wide (the largest a PDF
# may be) at 8 bins a line height needs this many for 7-point text.
MAX_GUTTER_BINS = 16_384


class BudgetSpent(Exception):
    """The page's layout spent its budget: the region being read is read in the simple reading order."""


class LayoutBudget:
    """Box visits and seconds left to one page's layout, and the notes of the bounds that fired."""

    def __init__(
        self, work: int = MAX_WORK, seconds: float = PAGE_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.work_left = work
        self.seconds = seconds
        self.clock = clock
        self.deadline = clock() + seconds
        self.notes: list[str] = []
        self.spent = False

    def charge(self, visits: int) -> None:
        """Count `visits` box visits; raises BudgetSpent (noted once) when the work or the time is used up."""
        self.work_left -= visits
        if self.work_left >= 0 and not self.spent and self.clock() <= self.deadline:
            return
        if not self.spent:
            self.spent = True
            why = "work" if self.work_left < 0 else f"{self.seconds:g} s"
            self.note(f"layout budget spent ({why}): read in simple reading order")
        raise BudgetSpent

    def note(self, text: str) -> None:
        """Record a bound that fired (each text once)."""
        if text not in self.notes:
            self.notes.append(text)

    def check_runs(self, count: int, bound: int) -> None:
        """Raise BudgetSpent (noted) for a page of more than `bound` boxes (LayoutParams.max_runs); else charge one
        visit each."""
        if count > bound:
            self.note(f"{count} text boxes (bound {bound}): read in simple reading order")
            raise BudgetSpent
        self.charge(count)


def join_notes(*parts: str | Iterable[str] | None) -> str | None:
    """Page notes joined with "; " (None when there are none): a repair note and the layout's bound notes."""
    out: list[str] = []
    for part in parts:
        for text in [part] if isinstance(part, str) else part or []:
            if text and text not in out:
                out.append(text)
    return "; ".join(out) or None
