"""The row tests of one table judged in one scan: a query costs DuckDB about a millisecond however small the table,
so an asset's ten tests in ten queries cost more than the whole of what the Python interpreter before them did.

For the row tests that read the same table (`not_null`, `unique`, `accepted_values`, `relationships`,
`expression_is_true`), one query returns every row that fails any of them, with a flag per test; each test's count
and first failing rows are then that query's rows with its flag, in the table's order, exactly what its own query
returns (generic_sql.RowCheck.query). When the combined query cannot run (a value one predicate cannot cast, a
missing output), nothing is kept and each test runs its own query, so the error shows on the test that has it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ocr_pipeline.checks.declared import TestSpec
from ocr_pipeline.checks.generic_sql import RowCheck, ordered, rows_of
from ocr_pipeline.checks.generic_tests import row_check, scanned_key
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.outcome import SAMPLE_ROWS, plain
from ocr_pipeline.checks.sql_tables import column_sql, quote

FLAG = "__fails_{}"


def combined_query(checks: list[RowCheck]) -> tuple[str, list[str]]:
    """One query over the checks' table: every row failing any of them, its columns and a flag per check."""
    columns: list[str] = []
    for check in checks:
        columns += [c for c in check.columns if c not in columns]
    shown = [f"{column_sql(c)} AS {quote(c)}" for c in columns]
    flags = [f"({check.predicate}) IS TRUE AS {FLAG.format(i)}" for i, check in enumerate(checks)]
    where = " OR ".join(f"({check.predicate})" for check in checks)
    dataset = checks[0].dataset
    return f"SELECT {', '.join(shown + flags)} FROM {rows_of(dataset)} WHERE {where}{ordered(dataset)}", columns


def prefetch(tests: Iterable[TestSpec], data: PartitionData) -> None:
    """Judge the row tests of each table in one query, leaving each test's count and sample in `data`'s memo."""
    groups: dict[tuple[str, str], list[tuple[TestSpec, RowCheck]]] = defaultdict(list)
    for test in tests:
        check = row_check(test)
        if check is not None:
            groups[(test.asset, check.dataset)].append((test, check))
    for (asset, _), members in groups.items():
        if len(members) < 2:
            continue  # one test's own query is the same one scan
        query, _ = combined_query([check for _, check in members])
        try:
            rows = data.session(asset).all(query)
        except Exception:  # noqa: BLE001 - any failure here is found again, and reported, by the test that has it
            continue
        for index, (test, check) in enumerate(members):
            failing = [row for row in rows if row[FLAG.format(index)]]
            sample = [{c: plain(row[c]) for c in check.columns} for row in failing[:SAMPLE_ROWS]]
            data.remember(scanned_key(test), (len(failing), sample))
