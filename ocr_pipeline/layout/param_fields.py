"""The one way a layout or text-layer threshold is declared: a frozen dataclass field carrying its meaning and unit.

Each parameter object (ColumnParams, ScanParams, PageReadParams, FurnitureParams, TableParams, FootnoteParams,
TextLayerParams) is a frozen dataclass, as pdfminer's LAParams, whose fields are made by `doc_field`: the field's
metadata "doc" holds one line, "unit: meaning" (a flag's doc is its meaning alone). Where a value came from (the
benchmark runs and measurements that chose it) is in benchmarks/README.md, "Where the layout thresholds came from",
not in the code.
"""

from __future__ import annotations

from dataclasses import field, fields
from typing import Any, TypeVar

T = TypeVar("T")


def doc_field(default: T, doc: str) -> T:
    """A dataclass field with `default` and its one-line meaning and unit (metadata "doc")."""
    # Typed as the default's own type, as dataclasses.field is, so mypy checks each field against its annotation.
    return field(default=default, metadata={"doc": doc})


def field_docs(params: Any) -> dict[str, str]:
    """Each field of a parameter object (or its class) with its one-line doc, in declaration order."""
    return {f.name: f.metadata["doc"] for f in fields(params)}
