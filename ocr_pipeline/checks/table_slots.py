"""A group's Arrow tables read by DuckDB in place, through names that outlive the group.

A connection registers each table name once, as a slot: an object with the Arrow PyCapsule interface that hands
DuckDB whichever table the current evaluation put in it. A prepared statement binds the object it found under a name,
never the name, so swapping the table in the slot is how a statement prepared for one group reads the next group's
rows; re-registering the name would leave it reading the old object. DuckDB checks each scan's columns against the
schema it bound, so a table of another schema is refused, never misread: the connection re-prepares instead
(sql_connection.py).

The generated queries list failing rows in the order of the file: they read `ordered_name(t)`, the table with its
row numbers as a `rowid` column, since a scan of Arrow has no row ids of its own.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import pyarrow as pa

# The column of row numbers generated queries order by (DuckDB's name for a table's own row ids).
ROW = "rowid"
_ORDERED = "__{}_with_rowid"


def ordered_name(dataset: str) -> str:
    """The name a table is read under with its row numbers (`rowid`)."""
    return _ORDERED.format(dataset)


def with_rowid(table: pa.Table) -> pa.Table:
    """The table with its row numbers appended as `rowid` (no copy of its columns); a table that has a `rowid` of
    its own keeps it, as a DuckDB table's own column named so hides the row ids."""
    if ROW in table.column_names:
        return table
    return table.append_column(ROW, _row_numbers(table.num_rows))


@lru_cache(maxsize=64)
def _row_numbers(count: int) -> pa.Array:
    """0 .. count-1, made once per length (immutable, so every table of that length shares them)."""
    return pa.array(np.arange(count, dtype=np.int64))


class TableSlot:
    """The table a registered name reads now: DuckDB calls these methods at every bind and every scan."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table
        self._empty = table.schema.empty_table()

    @property
    def schema(self) -> pa.Schema:
        """The columns of the table in the slot."""
        return self.table.schema

    def __arrow_c_schema__(self) -> Any:
        """The table's schema, as the Arrow PyCapsule interface exports it."""
        return self.table.schema.__arrow_c_schema__()

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """The table's rows, as the Arrow PyCapsule interface exports them (zero copy)."""
        return self.table.__arrow_c_stream__(requested_schema)

    def empty(self) -> None:
        """Let go of the group's rows, keeping the schema the connection's statements were prepared for."""
        if not self._empty.schema.equals(self.table.schema):  # made once per schema: a nested one takes 0.1 ms
            self._empty = self.table.schema.empty_table()
        self.table = self._empty
