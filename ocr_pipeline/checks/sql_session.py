"""A partition evaluation's SQL: a pooled connection (sql_connection.py) whose slots hold the group's Arrow tables,
read in place, and the time limit of each query.

Each table is put in its slot when a query first names it (loaded then), as it is under its own name and with its
row numbers under `ordered_name(t)` (table_slots.py); `metrics` is a view of the asset whose checks run (`use`).
DuckDB has no statement timeout: a watchdog thread interrupts a query past its limit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import duckdb
import pyarrow as pa

from ocr_pipeline.checks.sql_connection import checkout, give_back
from ocr_pipeline.checks.sql_database import QueryLimits
from ocr_pipeline.checks.sql_tables import DATASETS, METRICS_TABLE
from ocr_pipeline.checks.table_slots import ordered_name, with_rowid
from ocr_pipeline.checks.watchdog import WATCHDOG

__all__ = ["QueryError", "QueryLimits", "SqlSession", "first_line", "identifiers", "line_of", "one_statement"]

# Rows fetched at a time past the first few a check shows, only to be counted.
_BATCH = 2048
# Slot name -> the dataset whose table it holds, and whether with its row numbers.
_SLOTS = {**{d: (d, False) for d in DATASETS}, **{ordered_name(d).lower(): (d, True) for d in DATASETS}}


class QueryError(Exception):
    """A query that could not run (a type error on real data, a time or memory limit): a failed check that says why."""


def first_line(error: BaseException) -> str:
    """DuckDB's message without the query excerpt it appends on further lines."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


@lru_cache(maxsize=4096)
def _tokens(sql: str) -> tuple[frozenset[str], bool]:
    """The names a query spells as identifiers (lower case), and whether it is one statement, from DuckDB's
    tokenizer (never its comments or strings); kept per text: a check runs the same queries on every group."""
    tokens = duckdb.tokenize(sql)
    ends = [start for start, _ in tokens[1:]] + [len(sql)]
    names, ended, more = set(), False, False
    for (start, kind), end in zip(tokens, ends, strict=True):
        if kind == duckdb.token_type.identifier:
            found = re.match(r'\s*"?([A-Za-z_][A-Za-z0-9_]*)', sql[start:end])
            if found:
                names.add(found.group(1).lower())
        if kind == duckdb.token_type.operator and ";" in sql[start:end]:
            ended = True
        elif ended and kind != duckdb.token_type.comment:
            more = True
    return frozenset(names), not more


def identifiers(sql: str) -> frozenset[str]:
    """The names a query spells as identifiers (lower case): a superset of the tables it reads (a column may share a
    table's name), found without binding (DuckDB's own get_table_names binds, and fails on a join of tables not
    registered yet)."""
    return _tokens(sql)[0]


def one_statement(sql: str) -> bool:
    """Whether the text is one statement: DuckDB runs every statement of a text it is given (and binding one runs
    all but its last), so an expression that closed its parentheses and began another could change the connection
    every later evaluation reuses."""
    return _tokens(sql)[1]


class SqlSession:
    """A pooled connection whose slots hold the tables `load(name)` returns, filled on first use.

    `use(asset)` says whose checks run next: the `metrics` table is that asset's.
    """

    def __init__(self, load: Callable[[str], pa.Table], limits: QueryLimits | None = None) -> None:
        self.asset = ""
        self.limits = limits or QueryLimits()
        self._load = load
        self._filled: set[str] = set()
        self._pooled = checkout(self.limits)
        self._closed = False
        self.connection = self._pooled.cursor

    def close(self) -> None:
        """Give the connection back to the pool, its slots emptied (the tables are the caller's Arrow data)."""
        if not self._closed:  # twice would hand one connection to two sessions
            self._closed = True
            give_back(self._pooled, self.limits)

    def use(self, asset: str) -> SqlSession:
        """Run the next queries for the checks of `asset`."""
        self.asset = asset
        return self

    def ensure(self, sql: str) -> str:
        """Fill the slot of every table the query names (an unknown one is left for DuckDB to report); the scope it
        is prepared in: the asset when it reads `metrics`, else none."""
        if not one_statement(sql):
            raise QueryError("a check's query must be one statement")
        names = identifiers(sql)
        for name in sorted(names & _SLOTS.keys()):
            self._fill(name)
        if METRICS_TABLE in names and self.asset:
            self._fill(self.asset)
            self._pooled.metrics_of(self.asset)
            return self.asset
        return ""

    def _fill(self, name: str) -> None:
        if name not in self._filled:
            dataset, ordered = _SLOTS[name]
            table = self._load(dataset)
            self._pooled.fill(ordered_name(dataset) if ordered else dataset, with_rowid(table) if ordered else table)
            self._filled.add(name)

    def _execute(self, sql: str) -> duckdb.DuckDBPyConnection:
        """Run the query, through the statement this connection prepared for it."""
        return self.connection.execute(f"EXECUTE {self._pooled.prepared(sql, self.ensure(sql))}")

    @contextmanager
    def _limited(self) -> Iterator[None]:
        """Run the body under the time limit; DuckDB's limit errors become QueryError."""
        try:
            with WATCHDOG.watch(self.connection, self.limits.timeout_s):
                yield
        except duckdb.InterruptException as exc:
            raise QueryError(f"the query ran past its {self.limits.timeout_s:g} s limit and was stopped") from exc
        except duckdb.OutOfMemoryException as exc:
            raise QueryError(f"the query needed more than {self.limits.memory_limit}: {first_line(exc)}") from exc
        except duckdb.Error as exc:
            raise QueryError(first_line(exc)) from exc

    def rows(self, sql: str, keep: int) -> tuple[int, list[dict[str, Any]], list[str]]:
        """(how many rows the query returns, the first `keep` of them, its column names), fetched in batches so a
        query returning millions of rows holds at most one batch in Python."""
        with self._limited():
            result = self._execute(sql)
            names = [d[0] for d in result.description or []]
            first = [dict(zip(names, values, strict=True)) for values in result.fetchmany(keep)] if keep else []
            count = len(first)
            while batch := result.fetchmany(_BATCH):
                count += len(batch)
            return count, first, names

    def all(self, sql: str) -> list[dict[str, Any]]:
        """Every row of a query known to be small (counts, a metrics row, a distribution)."""
        with self._limited():
            result = self._execute(sql)
            names = [d[0] for d in result.description or []]
            return [dict(zip(names, values, strict=True)) for values in result.fetchall()]

    def bind(self, sql: str) -> list[str]:
        """Parse and bind a query without running it (DuckDB's errors as they are); its column types."""
        self.ensure(sql)
        return [str(kind) for kind in self.connection.sql(sql).types]

    def scalar(self, sql: str) -> Any:
        """The first column of the first row."""
        rows = self.all(sql)
        return next(iter(rows[0].values())) if rows else None


def line_of(error: BaseException) -> int | None:
    """The query line DuckDB's message points at (`LINE 3:`), if it names one."""
    found = re.search(r"^LINE (\d+):", str(error), re.M)
    return int(found.group(1)) if found else None
