"""Every SQL test of an asset judged in one statement: a DuckDB query costs a fixed fraction of a millisecond however
small the table, more than the Python interpreter before it spent on a test.

The statement scans each table the asset's tests read once. In that scan each row test (`not_null`, `unique`,
`accepted_values`, `relationships`, `expression_is_true`) asks for a number that is 0 exactly when none of its rows
fails (generic_sql.RowCheck.none_fail), each rate test for its page counts (rate_tests.rate_counts). Beside the
scans come the one-row queries the other tests start from (their `finding_query`: a singular test's or the inventory
accounting's rows counted, an expression over the metrics row, the language distribution). A row test whose number
is 0, a counted query that returns no rows, pass with none to show and run no query of their own; one with failing
rows runs its own query for their count and first rows, as it would alone; a rate test takes its counts and reads
its failing pages, if any, with its own query. When the statement cannot run (a value one predicate cannot cast, a
missing output, a limit, a singular query that does not nest), nothing is kept and each test runs its own queries,
so the error shows on the test that has it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ocr_pipeline.checks import domain_tests, generic_tests, rate_tests
from ocr_pipeline.checks.declared import TestSpec
from ocr_pipeline.checks.generic_sql import rows_of
from ocr_pipeline.checks.generic_tests import NONE_FAIL, judged_key, row_check
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.sql_tables import quote

COLUMN = "__test{}_{}"
FINDERS = (generic_tests.finding_query, rate_tests.finding_query, domain_tests.finding_query)


@dataclass(frozen=True)
class Asked:
    """What a test asks of its asset's statement: aggregates over the rows of `table` by name, or the row of
    `query`, a one-row query of its own."""

    table: str | None = None
    aggregates: dict[str, str] = field(default_factory=dict)
    query: str | None = None


def asked(test: TestSpec) -> Asked | None:
    """What a test asks of its asset's statement; None for the tests in Python."""
    check = row_check(test)
    if check is not None:
        return Asked(check.dataset, {NONE_FAIL: check.none_fail})
    counts = rate_tests.rate_counts(test)
    if counts is not None:
        return Asked(test.asset, counts)
    queries = [query for finder in FINDERS if (query := finder(test)) is not None]
    return Asked(query=queries[0]) if queries else None


def scans(tests: Iterable[tuple[int, TestSpec, Asked]]) -> dict[str, list[str]]:
    """Table -> the aggregates its scan computes for the tests (named by each test's place in the statement)."""
    columns: dict[str, list[str]] = defaultdict(list)
    for index, _, wanted in tests:
        if wanted.table is not None:
            columns[wanted.table] += [
                f"{aggregate} AS {quote(COLUMN.format(index, name))}" for name, aggregate in wanted.aggregates.items()
            ]
    return columns


def scan_query(table: str, columns: Sequence[str]) -> str:
    """One scan of a table computing the given columns."""
    return f"SELECT {', '.join(columns)} FROM {rows_of(table)}"


def judgement(tests: Iterable[TestSpec]) -> tuple[list[tuple[int, TestSpec, Asked]], str] | None:
    """The tests one statement judges, each with its place and what it asks, and the statement; None when none of
    them is SQL."""
    judged = [(index, test, wanted) for index, test in enumerate(tests) if (wanted := asked(test)) is not None]
    if not judged:
        return None
    parts = [scan_query(table, columns) for table, columns in scans(judged).items()]
    # A one-row query's row as one column (a struct of its columns, a dict in Python).
    parts += [
        f"SELECT found AS {quote(COLUMN.format(index, 'found'))} FROM ({wanted.query}) AS found"
        for index, _, wanted in judged
        if wanted.query is not None
    ]
    return judged, "SELECT * FROM " + ", ".join(f"({part}) AS {quote(f'__part{n}')}" for n, part in enumerate(parts))


def findings(row: dict[str, Any], index: int, wanted: Asked) -> dict[str, Any]:
    """What the statement's row holds for the test at `index`: its aggregates, or its query's row, by name."""
    if wanted.query is not None:
        return dict(row[COLUMN.format(index, "found")])
    return {name: row[COLUMN.format(index, name)] for name in wanted.aggregates}


def prefetch(tests: Iterable[TestSpec], data: PartitionData) -> None:
    """Judge the SQL tests of each asset in one statement, leaving what each asked in `data`'s memo."""
    by_asset: dict[str, list[TestSpec]] = defaultdict(list)
    for test in tests:
        by_asset[test.asset].append(test)
    for asset, of_asset in by_asset.items():
        plan = judgement(of_asset)
        if plan is None:
            continue
        judged, statement = plan
        try:
            [row] = data.session(asset).all(statement)
        except Exception:  # noqa: BLE001 - any failure here is found again, and reported, by the test that has it
            continue
        for index, test, wanted in judged:
            data.remember(judged_key(test), findings(row, index, wanted))
