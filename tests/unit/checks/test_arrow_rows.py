"""Rows as Arrow tables for the SQL: a column taken from Arrow's inference is the column converting the rows again
would give, whatever the rows hold (checks/arrow_rows.py)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from ocr_pipeline.checks.arrow_rows import _inferred, _merged, _typed, column, table_from_rows

SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("count", pa.int64()),
        ("share", pa.float64()),
        ("meta", pa.struct([("file", pa.string()), ("pages", pa.int64())])),
        ("spans", pa.list_(pa.list_(pa.float64()))),
        ("flags", pa.list_(pa.bool_())),
    ]
)
BIG = 2**53 + 1  # no double holds it


def converted(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """The table as converting every column from the rows gives it."""
    names = list(schema.names)
    for row in rows:
        names += [key for key in row if key not in names]
    columns = []
    for name in names:
        values = [row.get(name) for row in rows]
        expected = schema.field(name).type if name in schema.names else None
        inferred = _inferred(values)
        kind, _ = _merged(expected, inferred.type if inferred is not None else pa.string())
        columns.append(column(values, _typed(kind)))
    return pa.Table.from_arrays(columns, names=names)


@pytest.mark.parametrize(
    "rows",
    [
        [{"id": "a", "count": 1, "share": 1, "meta": {"file": "x", "pages": 2}, "spans": [[0, 5, 1]], "flags": []}],
        [{"spans": [[0, 5, 1.5]], "share": 0.5}, {"spans": [], "share": 2}, {"spans": None}],
        [{"count": 1.5}, {"count": 2}],  # a fraction where a count belongs: a double, not a truncated count
        [{"share": BIG}, {"share": 1}],  # an integer no double holds
        [{"count": "5"}, {"count": 6}],  # text where a count belongs: JSON text
        [{"id": {"nested": 1}}, {"id": "b"}],
        [{"meta": {"pages": 3, "file": "y", "extra": True}}, {"meta": None}, {"meta": "not a struct"}],
        [{"meta": {"pages": 1}}, {"other": [1, 2]}, {"other": None}],
        [{"flags": [True, None]}, {"flags": [1]}],
        [{"spans": [[]]}, {"spans": [[None]]}, {"unknown": None}],
        [{"count": True}],
    ],
)
def test_an_inferred_column_is_the_converted_column(rows: list[dict[str, Any]]) -> None:
    table, expected = table_from_rows(rows, SCHEMA), converted(rows, SCHEMA)
    assert table.schema == expected.schema
    assert table.to_pylist() == expected.to_pylist()
