"""Connections to the process's database, kept from one evaluation to the next with their prepared statements.

DuckDB spends more planning a check's query (parsing, binding, optimising: 1-10 ms for the shipped ones) than running
it on a group's few thousand rows (0.1-3 ms). So a connection is not closed when its evaluation ends but kept in a
pool for the next one, and each statement is prepared the first time a connection runs it and only executed after
that. Its tables are slots (table_slots.py), registered once, whose tables each evaluation swaps: a statement
prepared for one group reads the next group's rows. A statement is kept under its text, and when it reads `metrics`
also under the asset whose metrics those are (a prepared statement keeps the view it was bound to). A slot whose new
table has other columns than its old one makes the connection drop every statement it prepared (each was bound to
the old columns; DuckDB would refuse to run it) and prepare them again.
"""

from __future__ import annotations

import itertools
import threading
from collections import defaultdict

import duckdb
import pyarrow as pa

from ocr_pipeline.checks.sql_database import QueryLimits, database, on_close
from ocr_pipeline.checks.sql_tables import METRICS_TABLE, metrics_sql
from ocr_pipeline.checks.table_slots import TableSlot


class PooledConnection:
    """A connection to the process's database, its table slots and the statements it has prepared."""

    def __init__(self, limits: QueryLimits) -> None:
        self.cursor = database(limits).cursor()
        self.slots: dict[str, TableSlot] = {}
        self._prepared: dict[tuple[str, str], str] = {}
        self._numbers = itertools.count()
        self._metrics_asset: str | None = None

    def fill(self, name: str, table: pa.Table) -> None:
        """Put `table` in the slot `name`, registering the slot the first time."""
        slot = self.slots.get(name)
        if slot is None:
            self.slots[name] = TableSlot(table)
            self.cursor.register(name, self.slots[name])
            return
        if not slot.schema.equals(table.schema):
            self._forget_prepared()
        slot.table = table

    def metrics_of(self, asset: str) -> None:
        """Make the `metrics` view summarize `asset` (its slot filled first)."""
        if self._metrics_asset != asset:
            self.cursor.execute(f"CREATE OR REPLACE TEMP VIEW {METRICS_TABLE} AS {metrics_sql(asset)}")
            self._metrics_asset = asset

    def prepared(self, sql: str, scope: str) -> str:
        """The name of the statement prepared for `sql`, one statement, in `scope` (prepared now the first time)."""
        key = (scope, sql)
        if key not in self._prepared:
            [statement] = duckdb.extract_statements(sql)
            name = f"check_query_{next(self._numbers)}"
            self.cursor.execute(f"PREPARE {name} AS {statement.query}")
            self._prepared[key] = name
        return self._prepared[key]

    def _forget_prepared(self) -> None:
        for name in self._prepared.values():
            self.cursor.execute(f"DEALLOCATE {name}")
        self._prepared.clear()

    def empty(self) -> None:
        """Let go of the group's tables (the slots keep their columns, so the prepared statements stay valid)."""
        for slot in self.slots.values():
            slot.empty()


_IDLE: dict[tuple[int, str, int], list[PooledConnection]] = defaultdict(list)
_LOCK = threading.Lock()


def checkout(limits: QueryLimits) -> PooledConnection:
    """An idle connection to the database of these limits, or a new one: the caller's alone until `give_back`."""
    with _LOCK:
        idle = _IDLE[limits.key]
        if idle:
            return idle.pop()
    return PooledConnection(limits)


def give_back(connection: PooledConnection, limits: QueryLimits) -> None:
    """Empty the connection's slots and keep it for the next evaluation."""
    connection.empty()
    with _LOCK:
        _IDLE[limits.key].append(connection)


def _close_idle() -> None:
    with _LOCK:
        for connections in _IDLE.values():
            for connection in connections:
                connection.cursor.close()
        _IDLE.clear()


on_close(_close_idle)
