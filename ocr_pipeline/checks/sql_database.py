"""The process's DuckDB database for the checks' queries: no file or network access, bounded in memory and threads.

It is in memory, with external access off (no `read_csv`, `COPY`, `ATTACH`, extension installs), no access to Python
variables by name, its memory limit and threads set and then its configuration locked, so no query can lift them.
Opening one costs about 50 ms, so it is made once per process (a forked child makes its own).
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

import duckdb

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
    queries running at once), and the seconds one query may run before it is interrupted.

    One thread: a group's tables are thousands of rows, and waking a second thread for each pipeline of a query cost
    more than it saved (the shipped checks of a 500-page group: 30.6 ms against 32.9 ms with two; 176 against 182 ms
    at 5,000 pages).
    """

    memory_limit: str = "1GB"
    threads: int = 1
    timeout_s: float = 60.0

    @property
    def key(self) -> tuple[int, str, int]:
        """The database these limits get in this process."""
        return (os.getpid(), self.memory_limit, self.threads)


_DATABASES: dict[tuple[int, str, int], duckdb.DuckDBPyConnection] = {}
_DATABASES_LOCK = threading.Lock()
# What to close before the databases at exit (the pooled connections to them).
_BEFORE_CLOSE: list[Callable[[], None]] = []


def database(limits: QueryLimits) -> duckdb.DuckDBPyConnection:
    """This process's locked-down database with these limits, opened on first use."""
    with _DATABASES_LOCK:
        if limits.key not in _DATABASES:
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
            _DATABASES[limits.key] = connection
        return _DATABASES[limits.key]


def on_close(release: Callable[[], None]) -> None:
    """Run `release` at exit before the databases close."""
    _BEFORE_CLOSE.append(release)


@atexit.register
def _close_databases() -> None:
    """Close the databases before the interpreter tears its modules down (DuckDB's bindings report a connection
    still open then as a leak, on stderr, after every command that ran a check)."""
    for release in _BEFORE_CLOSE:
        release()
    with _DATABASES_LOCK:
        for connection in _DATABASES.values():
            connection.close()
        _DATABASES.clear()
