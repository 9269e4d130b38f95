"""A positioned piece of text, the unit reading order, columns, furniture and tables work on."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Box:
    """One positioned piece of text: an OCR line or a PDF text run (y grows downwards)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str

    @property
    def height(self) -> float:
        """Box height (never below a tiny epsilon, so ratios stay finite)."""
        return max(self.y1 - self.y0, 1e-6)

    @property
    def yc(self) -> float:
        """Vertical centre."""
        return (self.y0 + self.y1) / 2
