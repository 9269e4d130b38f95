"""The layout's geometry: a positioned piece of text, a ruling line, and the extent of a group of either.

Boxes are what reading order, columns, furniture and tables work on; rules are the lines a table is drawn with. Both
have y growing downwards. The extent helpers take anything with x0, y0, x1, y1 (a formula's symbols too), so the
span of a row, a block or a table is written once, here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol


class Extent(Protocol):
    """Anything with a rectangle: x0 <= x1, y0 <= y1."""

    @property
    def x0(self) -> float: ...
    @property
    def y0(self) -> float: ...
    @property
    def x1(self) -> float: ...
    @property
    def y1(self) -> float: ...


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


@dataclass(frozen=True)
class Rule:
    """A ruling line: horizontal (y0 == y1 within a point or two) or vertical."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def horizontal(self) -> bool:
        """Wider than tall."""
        return self.x1 - self.x0 >= self.y1 - self.y0


# Named "_of" so that they never clash with the left, right, top and bottom the layout code keeps in its variables.
def left_of(items: Iterable[Extent]) -> float:
    """The leftmost x0 of `items` (at least one)."""
    return min(b.x0 for b in items)


def right_of(items: Iterable[Extent]) -> float:
    """The rightmost x1 of `items` (at least one)."""
    return max(b.x1 for b in items)


def top_of(items: Iterable[Extent]) -> float:
    """The least y0 of `items` (at least one): the top where y grows downwards, the bottom where it grows up."""
    return min(b.y0 for b in items)


def bottom_of(items: Iterable[Extent]) -> float:
    """The greatest y1 of `items` (at least one)."""
    return max(b.y1 for b in items)


def x_span(items: Sequence[Extent]) -> tuple[float, float]:
    """(left, right) of `items` (at least one)."""
    return left_of(items), right_of(items)


def y_span(items: Sequence[Extent]) -> tuple[float, float]:
    """(least y0, greatest y1) of `items` (at least one)."""
    return top_of(items), bottom_of(items)


def width_of(items: Sequence[Extent]) -> float:
    """How wide `items` (at least one) stand together: their rightmost x1 less their leftmost x0."""
    return right_of(items) - left_of(items)


def bounds(items: Sequence[Extent]) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of the rectangle that holds all of `items` (at least one)."""
    return left_of(items), top_of(items), right_of(items), bottom_of(items)
