"""The one way a layout or text-layer threshold is declared: a frozen dataclass field carrying its meaning and unit.

Each parameter object (ColumnParams, ScanParams, PageReadParams, FurnitureParams, TableParams, FootnoteParams,
TextLayerParams, MathParams, and the bundles LayoutParams and ReadingParams that hold them) is a frozen dataclass, as
pdfminer's LAParams, whose fields are made by `doc_field`: the field's metadata "doc" holds one line, "unit:
meaning" (a flag's doc is its meaning alone). Each checks its values when built (`check_values`), so a variant made
with dataclasses.replace fails where it is made, not pages later. Where a value came from (the benchmark runs and
measurements that chose it) is in docs/decisions.md, "Where the layout thresholds came from", not in the code.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import MISSING, field, fields
from typing import Any, TypeVar

T = TypeVar("T")


def doc_field(default: T, doc: str) -> T:
    """A dataclass field with `default` and its one-line meaning and unit (metadata "doc")."""
    # Typed as the default's own type, as dataclasses.field is, so mypy checks each field against its annotation.
    return field(default=default, metadata={"doc": doc})


def field_docs(params: Any) -> dict[str, str]:
    """Each field of a parameter object (or its class) with its one-line doc, in declaration order."""
    return {f.name: f.metadata["doc"] for f in fields(params)}


def _numbers(value: Any) -> tuple[Any, ...]:
    """The numbers a field holds: itself, or each of a pair's."""
    return value if isinstance(value, tuple) else (value,)


def _same_kind(value: Any, default: Any) -> bool:
    """Whether `value` is of the kind its field's default is: a flag, a count, a number, a pair, a text, an object."""
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, int):
        return isinstance(value, int)
    if isinstance(default, float):
        return isinstance(value, int | float)
    if isinstance(default, tuple):
        return isinstance(value, tuple) and len(value) == len(default) and all(_same_kind(v, 0.0) for v in value)
    return isinstance(value, type(default))


def _kind(default: Any) -> str:
    """What a field holds, for a message: "a float", "an int", "a ColumnParams"."""
    name = type(default).__name__
    return f"{'an' if name[0] in 'aeiouAEIOU' else 'a'} {name}"


def check_values(
    params: Any,
    shares: Iterable[str] = (),
    positive: Iterable[str] = (),
    ordered: Iterable[tuple[str, str]] = (),
) -> None:
    """Raise ValueError unless each field of `params` is of its default's kind and every number is finite and not
    negative (a pair in order, low to high), each field named in `shares` lies within 0..1, each in `positive` is
    above 0, and each pair in `ordered` is in order (the first at most the second)."""
    name = type(params).__name__
    for f in fields(params):
        value = getattr(params, f.name)
        if f.default is not MISSING and not _same_kind(value, f.default):
            raise ValueError(f"{name}.{f.name} is {value!r}: {_kind(f.default)}, as its default, is wanted")
        numbers = [v for v in _numbers(value) if isinstance(v, int | float) and not isinstance(v, bool)]
        if not all(math.isfinite(v) and v >= 0 for v in numbers):
            raise ValueError(f"{name}.{f.name} is {value!r}: a threshold is a finite number, 0 or more")
        if isinstance(value, tuple) and list(value) != sorted(value):
            raise ValueError(f"{name}.{f.name} is {value!r}: a range runs from low to high")
    for share in shares:
        if not all(v <= 1 for v in _numbers(getattr(params, share))):
            raise ValueError(f"{name}.{share} is {getattr(params, share)!r}: a share lies within 0..1")
    for size in positive:
        if not getattr(params, size) > 0:
            raise ValueError(f"{name}.{size} is {getattr(params, size)!r}: it must be above 0")
    for low, high in ordered:
        if getattr(params, low) > getattr(params, high):
            raise ValueError(f"{name}.{low} ({getattr(params, low)!r}) is above {high} ({getattr(params, high)!r})")
