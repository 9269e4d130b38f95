"""One DuckDB connection over a work group's Arrow tables: no file or network access, bounded in memory and time.

The process opens one in-memory database, with external access off (no `read_csv`, `COPY`, `ATTACH`, extension
installs), its memory limit and threads set and then its configuration locked, so no query can lift them; opening
it costs about 50 ms, so it is made once per process (a forked child makes its own). Each partition evaluation gets
a fresh connection to it, whose tables are its own (temporary): each is copied in from its Arrow table when a query
first names it. The copy costs a few milliseconds once and halves every later scan of it (DuckDB converts an Arrow
table, nested Dolma fields above all, on every scan), counts against the memory limit, and numbers the rows in the
order of the file (`rowid`), the order a check lists its failing rows in. DuckDB has no statement timeout: a
watchdog thread interrupts a query past its limit.
"""

from __future__ import annotations

import atexit
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa

from ocr_pipeline.checks.sql_tables import DATASETS, METRICS_TABLE, metrics_sql, quote
from ocr_pipeline.checks.watchdog import WATCHDOG

# DuckDB's row number of a table, in the order its rows were copied in: samples list failing rows in that order.
ROW = "rowid"
# The name an Arrow table is registered under while it is copied into its table.
_ARROW = "__arrow_source"
# Rows fetched at a time past the first few a check shows, only to be counted.
_BATCH = 2048
# Helpers every query may use. is_blank: Python's str.isspace() whitespace (RE2's \s is ASCII only, without \v);
# strip_text: Python's str.strip(); safe_divide: 0/0 is 0 and x/0 infinity, so an empty partition passes a rate bound.
_SPACE = r"[\s\x{0b}\x{1c}-\x{1f}\x{85}\p{Z}]"
MACROS = {
    "is_blank": f"(s) AS regexp_full_match(coalesce(s, ''), '{_SPACE}*')",
    "strip_text": f"(s) AS regexp_replace(s, '^{_SPACE}+|{_SPACE}+$', '', 'g')",
    "safe_divide": "(a, b) AS CASE WHEN b = 0 THEN CASE WHEN a = 0 THEN 0.0 ELSE 'inf'::DOUBLE END ELSE a / b END",
}


@dataclass(frozen=True)
class QueryLimits:
    """What the checks' queries may use: the memory limit and threads of the process's database (shared by the
    queries running at once), and the seconds one query may run before it is interrupted."""

    memory_limit: str = "1GB"
    threads: int = 2
    timeout_s: float = 60.0


class QueryError(Exception):
    """A query that could not run (a type error on real data, a time or memory limit): a failed check that says why."""


def first_line(error: BaseException) -> str:
    """DuckDB's message without the query excerpt it appends on further lines."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def identifiers(sql: str) -> set[str]:
    """The names a query spells as identifiers (lower case), from DuckDB's tokenizer: never its comments or strings.

    A superset of the tables it reads (a column may share a table's name), found without binding: DuckDB's own
    get_table_names binds the query, and fails on a join of tables not registered yet.
    """
    tokens = duckdb.tokenize(sql)
    ends = [start for start, _ in tokens[1:]] + [len(sql)]
    names = set()
    for (start, kind), end in zip(tokens, ends, strict=True):
        if kind == duckdb.token_type.identifier:
            found = re.match(r'\s*"?([A-Za-z_][A-Za-z0-9_]*)', sql[start:end])
            if found:
                names.add(found.group(1).lower())
    return names


_DATABASES: dict[tuple[int, str, int], duckdb.DuckDBPyConnection] = {}
_DATABASES_LOCK = threading.Lock()


def database(limits: QueryLimits) -> duckdb.DuckDBPyConnection:
    """This process's locked-down database with these limits, opened on first use."""
    key = (os.getpid(), limits.memory_limit, limits.threads)
    with _DATABASES_LOCK:
        if key not in _DATABASES:
            connection = duckdb.connect(
                ":memory:",
                config={
                    "enable_external_access": False,
                    "autoinstall_known_extensions": False,
                    "autoload_known_extensions": False,
                    "allow_community_extensions": False,
                    "memory_limit": limits.memory_limit,
                    "threads": limits.threads,
                    "preserve_insertion_order": True,
                    # No query reads a Python variable of the caller's frames by its name (DuckDB's replacement scan).
                    "python_enable_replacements": False,
                },
            )
            for name, body in MACROS.items():
                connection.execute(f"CREATE MACRO {name}{body}")
            connection.execute("SET lock_configuration = true")
            _DATABASES[key] = connection
        return _DATABASES[key]


@atexit.register
def _close_databases() -> None:
    """Close the databases before the interpreter tears its modules down (DuckDB's bindings report a connection
    still open then as a leak, on stderr, after every command that ran a check)."""
    with _DATABASES_LOCK:
        for connection in _DATABASES.values():
            connection.close()
        _DATABASES.clear()


class SqlSession:
    """A connection to the process's locked-down database whose tables are loaded on first use by `load(name)`.

    `use(asset)` says whose checks run next: the `metrics` table is that asset's.
    """

    def __init__(self, load: Callable[[str], pa.Table], limits: QueryLimits | None = None) -> None:
        self.asset = ""
        self.limits = limits or QueryLimits()
        self._load = load
        self._registered: set[str] = set()
        self.connection = database(self.limits).cursor()

    def close(self) -> None:
        """Release the connection and its views (its tables are the caller's Arrow data, not copied)."""
        self.connection.close()

    def use(self, asset: str) -> SqlSession:
        """Run the next queries for the checks of `asset`."""
        if asset != self.asset:
            self.asset = asset
            if METRICS_TABLE in self._registered:
                self.connection.execute(f"DROP VIEW {METRICS_TABLE}")
                self._registered.discard(METRICS_TABLE)
        return self

    def ensure(self, sql: str) -> None:
        """Copy in every table the query names; an unknown one is left for DuckDB to report."""
        for name in sorted(identifiers(sql)):
            if name == METRICS_TABLE and self.asset:
                self._table(self.asset)
                if METRICS_TABLE not in self._registered:
                    self.connection.execute(f"CREATE TEMP VIEW {METRICS_TABLE} AS {metrics_sql(self.asset)}")
                    self._registered.add(METRICS_TABLE)
            elif name in DATASETS:
                self._table(name)

    def _table(self, dataset: str) -> None:
        if dataset not in self._registered:
            self.connection.register(_ARROW, self._load(dataset))
            try:
                self.connection.execute(f"CREATE TEMP TABLE {quote(dataset)} AS SELECT * FROM {_ARROW}")
            finally:
                self.connection.unregister(_ARROW)
            self._registered.add(dataset)

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
            self.ensure(sql)
            result = self.connection.execute(sql)
            names = [d[0] for d in result.description or []]
            first = [dict(zip(names, values, strict=True)) for values in result.fetchmany(keep)] if keep else []
            count = len(first)
            while batch := result.fetchmany(_BATCH):
                count += len(batch)
            return count, first, names

    def all(self, sql: str) -> list[dict[str, Any]]:
        """Every row of a query known to be small (counts, a metrics row, a distribution)."""
        with self._limited():
            self.ensure(sql)
            result = self.connection.execute(sql)
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
