"""Rows (parsed JSON lines) as Arrow tables of a known schema, whatever the rows hold, for DuckDB to read.

A check must report bad data, not crash on it: a value of the wrong type (a count written as text, a field that is a
list in one document and a number in another) keeps its column's other values and becomes that value's JSON text,
or the whole column's JSON text where no type fits them all. Columns the rows add are kept (inferred); columns they
lack are null, so a query binds the same way whatever the partition holds.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

_CONVERSION_ERRORS = (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError, TypeError)


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, default=str)


def _inferred(values: list[Any]) -> pa.Array | None:
    """The values as Arrow infers them, or None where they do not share a type."""
    try:
        return pa.array(values)
    except _CONVERSION_ERRORS:
        return None


def _merged(expected: pa.DataType | None, found: pa.DataType) -> tuple[pa.DataType, bool]:
    """The expected type with what the found type adds (struct fields the schema does not name), and whether that is
    the found type widened (True) rather than the expected type the found one does not fit (False)."""
    if expected is None:
        return found, True
    try:
        merged = pa.unify_schemas(
            [pa.schema([("c", expected)]), pa.schema([("c", found)])], promote_options="permissive"
        ).field("c")
        return merged.type, True
    except _CONVERSION_ERRORS:
        return expected, False


def column(values: list[Any], kind: pa.DataType) -> pa.Array:
    """The values as an array of `kind`; a struct column field by field, anything that will not convert as JSON."""
    try:
        return pa.array(values, type=kind)
    except _CONVERSION_ERRORS:
        pass
    if pa.types.is_struct(kind):
        mask = pa.array([not isinstance(v, dict) for v in values])
        children = [column([v.get(f.name) if isinstance(v, dict) else None for v in values], f.type) for f in kind]
        return pa.StructArray.from_arrays(children, names=[f.name for f in kind], mask=mask)
    if pa.types.is_string(kind):
        return pa.array([v if isinstance(v, str) or v is None else _json(v) for v in values], type=pa.string())
    return pa.array([_json(v) for v in values], type=pa.string())


def _typed(kind: pa.DataType) -> pa.DataType:
    """The type with text where Arrow found only nulls (a field always empty): a table column needs a type."""
    if pa.types.is_null(kind):
        return pa.string()
    if pa.types.is_list(kind):
        return pa.list_(_typed(kind.value_type))
    if pa.types.is_struct(kind):
        return pa.struct([pa.field(f.name, _typed(f.type)) for f in kind])
    return kind


def table_from_rows(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """The rows as a table with every column of `schema` (in its order, then the rows' other keys)."""
    names = list(schema.names)
    for row in rows:
        names += [key for key in row if key not in names]
    columns = []
    for name in names:
        values = [row.get(name) for row in rows]
        expected = schema.field(name).type if name in schema.names else None
        columns.append(_column(values, expected) if rows else column(values, _typed(expected or pa.string())))
    return pa.Table.from_arrays(columns, names=names)


def _column(values: list[Any], expected: pa.DataType | None) -> pa.Array:
    """The values as a column of the expected type widened to what they hold.

    Arrow's inference already converted them: where that is the column's type (text, a struct the rows fill as the
    schema has it), the inferred array is the column. Where the column's type widens it (integer spans read as
    doubles) they are converted again: a cast would be cheaper per table, but its first use in a process imports
    pyarrow.compute (26 ms), more than a run's few evaluations save.
    """
    inferred = _inferred(values)
    kind, widened = _merged(expected, inferred.type if inferred is not None else pa.string())
    kind = _typed(kind)
    if inferred is not None and widened and inferred.type == kind:
        return inferred
    return column(values, kind)


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """A table read from a file, with the schema's columns it lacks (an older file) added as nulls."""
    present = set(table.column_names)
    for field in schema:
        if field.name not in present:
            table = table.append_column(field, pa.nulls(table.num_rows, field.type))
    return table
