"""The SQL tests of an asset that read the same table judged in one scan: a DuckDB query costs a fixed fraction of a
millisecond however small the table, more than the Python interpreter before it spent on a test.

Each row test (`not_null`, `unique`, `accepted_values`, `relationships`, `expression_is_true`) asks the scan for a
number that is 0 exactly when none of its rows fails (generic_sql.RowCheck.none_fail), each rate test for its page
counts (rate_tests.rate_counts). A row test whose number is 0 passes with no failing rows and runs no query of its
own; one with failing rows runs its own query for their count and first rows, as it would alone; a rate test takes
its counts and reads its failing pages, if any, with its own query. When the scan cannot run (a value one predicate
cannot cast, a missing output, a limit), nothing is kept and each test runs its own queries, so the error shows on
the test that has it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ocr_pipeline.checks.declared import TestSpec
from ocr_pipeline.checks.generic_sql import rows_of
from ocr_pipeline.checks.generic_tests import NONE_FAIL, judged_key, row_check
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.rate_tests import rate_counts
from ocr_pipeline.checks.sql_tables import quote

COLUMN = "__test{}_{}"
# The tests one scan judges, each with the names of the aggregates it asked.
Judged = list[tuple[TestSpec, list[str]]]


def asked(test: TestSpec) -> tuple[str, dict[str, str]] | None:
    """The table a test is judged on and the aggregates it asks of its scan, by name; None for the other tests."""
    check = row_check(test)
    if check is not None:
        return check.dataset, {NONE_FAIL: check.none_fail}
    counts = rate_counts(test)
    return (test.asset, counts) if counts is not None else None


def judgement_query(dataset: str, aggregates: list[dict[str, str]]) -> str:
    """One scan of the table computing every test's aggregates, named by the test's place in the list."""
    columns = [
        f"{aggregate} AS {quote(COLUMN.format(index, name))}"
        for index, asked_of in enumerate(aggregates)
        for name, aggregate in asked_of.items()
    ]
    return f"SELECT {', '.join(columns)} FROM {rows_of(dataset)}"


def judgement_queries(tests: Iterable[TestSpec]) -> dict[tuple[str, str], tuple[Judged, str]]:
    """(asset, table) -> the tests judged in that table's scan with the names of their aggregates, and its query, for
    every table two tests share (one test's own query is the same one scan)."""
    groups: dict[tuple[str, str], list[tuple[TestSpec, dict[str, str]]]] = defaultdict(list)
    for test in tests:
        found = asked(test)
        if found is not None:
            groups[(test.asset, found[0])].append((test, found[1]))
    return {
        (asset, dataset): ([(t, list(a)) for t, a in members], judgement_query(dataset, [a for _, a in members]))
        for (asset, dataset), members in groups.items()
        if len(members) > 1
    }


def prefetch(tests: Iterable[TestSpec], data: PartitionData) -> None:
    """Judge the SQL tests of each table in one scan, leaving each test's aggregates in `data`'s memo."""
    for (asset, _), (judged, query) in judgement_queries(tests).items():
        try:
            [row] = data.session(asset).all(query)
        except Exception:  # noqa: BLE001 - any failure here is found again, and reported, by the test that has it
            continue
        for index, (test, names) in enumerate(judged):
            data.remember(judged_key(test), {name: row[COLUMN.format(index, name)] for name in names})
