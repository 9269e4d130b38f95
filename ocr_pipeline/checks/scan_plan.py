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
from collections.abc import Iterable, Sequence

from ocr_pipeline.checks.declared import TestSpec
from ocr_pipeline.checks.generic_sql import rows_of
from ocr_pipeline.checks.generic_tests import NONE_FAIL, judged_key, row_check
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.rate_tests import rate_counts
from ocr_pipeline.checks.sql_tables import quote

COLUMN = "__test{}_{}"
# The tests one scan judges, each with the aggregates it asks of it by name.
Judged = list[tuple[TestSpec, dict[str, str]]]


def asked(test: TestSpec) -> tuple[str, dict[str, str]] | None:
    """The table a test is judged on and the aggregates it asks of its scan, by name; None for the other tests."""
    check = row_check(test)
    if check is not None:
        return check.dataset, {NONE_FAIL: check.none_fail}
    counts = rate_counts(test)
    return (test.asset, counts) if counts is not None else None


def judgement_groups(tests: Iterable[TestSpec]) -> dict[tuple[str, str], Judged]:
    """(asset, table) -> the tests judged in one scan of that table, for every table two tests share (one test's own
    query is the same one scan)."""
    groups: dict[tuple[str, str], Judged] = defaultdict(list)
    for test in tests:
        found = asked(test)
        if found is not None:
            groups[(test.asset, found[0])].append((test, found[1]))
    return {key: judged for key, judged in groups.items() if len(judged) > 1}


def judgement_query(dataset: str, judged: Judged, also: Sequence[str] = ()) -> str:
    """One scan of the table computing every test's aggregates, named by the test's place in the list (and `also`,
    more columns of the same scan)."""
    columns = [
        f"{aggregate} AS {quote(COLUMN.format(index, name))}"
        for index, (_, aggregates) in enumerate(judged)
        for name, aggregate in aggregates.items()
    ]
    return f"SELECT {', '.join([*columns, *also])} FROM {rows_of(dataset)}"


def prefetch(tests: Iterable[TestSpec], data: PartitionData) -> None:
    """Judge the SQL tests of each table in one scan, leaving each test's aggregates in `data`'s memo."""
    for (asset, dataset), judged in judgement_groups(tests).items():
        try:
            [row] = data.session(asset).all(judgement_query(dataset, judged))
        except Exception:  # noqa: BLE001 - any failure here is found again, and reported, by the test that has it
            continue
        for index, (test, aggregates) in enumerate(judged):
            data.remember(judged_key(test), {name: row[COLUMN.format(index, name)] for name in aggregates})
