"""The generic (dbt-style) tests, each run as SQL on the group's tables (generic_sql.py): passed, counts, the first
failing rows."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ocr_pipeline.checks import generic_sql as sql
from ocr_pipeline.checks.declared import TestSpec
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.outcome import SAMPLE_ROWS, Implementation, Outcome, plain, rows_outcome
from ocr_pipeline.checks.sql_tables import METRICS, METRICS_TABLE

__all__ = [
    "GENERIC_TESTS",
    "NONE_FAIL",
    "Outcome",
    "counted",
    "failing_rows",
    "finding_query",
    "found",
    "judged_key",
    "named_metrics",
    "row_check",
]

# The column that carries a metrics expression's verdict beside the metrics.
RESULT = "__passed"
# What scan_plan.py finds for a row test: 0 exactly when none of its rows fails (generic_sql.RowCheck.none_fail).
NONE_FAIL = "none_fail"
# The column of a query's row count (`counted`).
ROWS = "rows"


def failing_rows(spec: TestSpec, data: PartitionData, query: str) -> tuple[int, list[dict[str, Any]]]:
    """How many rows the query returns and the first few, as plain values; none, without running it, where
    scan_plan.py counted them (`counted`) and found none."""
    judged = data.recall(judged_key(spec))
    if judged is not None and judged.get(ROWS) == 0:
        return 0, []
    count, first, _ = data.session(spec.asset).rows(query, SAMPLE_ROWS)
    return count, [plain(row) for row in first]


def counted(query: str) -> str:
    """A one-row query of how many rows `query` returns (its trailing semicolon dropped, so that it nests)."""
    return f"SELECT count(*) AS {ROWS} FROM (\n{query.strip().rstrip(';').rstrip()}\n)"


def found(spec: TestSpec, data: PartitionData, query: str) -> dict[str, Any]:
    """The row a test's one-row query returns: as scan_plan.py found it in its asset's statement, else run now."""
    judged = data.recall(judged_key(spec))
    if judged is not None:
        return dict(judged)
    [row] = data.session(spec.asset).all(query)
    return row


def row_check(spec: TestSpec) -> sql.RowCheck | None:
    """A row test's failing rows as SQL (None for the other tests), as scan_plan.py also judges them."""
    p, asset = spec.params, spec.asset
    if spec.type == "unique":
        return sql.unique(asset, p["column"])[0]
    if spec.type == "not_null":
        return sql.not_null(asset, p["column"])
    if spec.type == "accepted_values":
        return sql.accepted_values(asset, p["column"], p["values"])[0]
    if spec.type == "relationships":
        targets = p["to"] if isinstance(p["to"], list) else [p["to"]]
        return sql.relationships(p.get("from") or f"{asset}.{p['column']}", targets)
    if spec.type == "expression_is_true" and p.get("table", asset) != METRICS_TABLE:
        return sql.expression_is_true(p.get("table", asset), expression_of(spec))
    return None


def judged_key(spec: TestSpec) -> str:
    """Where scan_plan.py leaves what it found for a test (its aggregates, or its one-row query's row, by column
    name) in the partition's memo."""
    return f"judged:{spec.asset}:{spec.name}"


def finding_query(spec: TestSpec) -> str | None:
    """The one-row query a generic test's outcome starts from (scan_plan.py runs it with its asset's others): a
    singular test's rows counted, an expression over the metrics row with the metrics it names; None for the rest."""
    if spec.type == "singular":
        return counted(spec.params["sql"])
    if spec.type == "expression_is_true" and spec.params.get("table", spec.asset) == METRICS_TABLE:
        return _metrics_query(spec)
    return None


def _checked(data: PartitionData, dataset: str) -> int:
    """The rows a row test judged: the table's, read from Arrow rather than asked of DuckDB (a query costs ms)."""
    return 1 if dataset == METRICS_TABLE else data.table(dataset).num_rows


def _rows_test(spec: TestSpec, data: PartitionData, what: str) -> Outcome:
    check = row_check(spec)
    assert check is not None, spec.type
    judged = data.recall(judged_key(spec))
    none_fail = judged is not None and judged[NONE_FAIL] == 0
    count, sample = (0, []) if none_fail else failing_rows(spec, data, check.query)
    return rows_outcome(spec, _checked(data, check.dataset), sample, what, count=count)


def _unique(spec: TestSpec, data: PartitionData) -> Outcome:
    column = spec.params["column"]
    outcome = _rows_test(spec, data, f"share a value of {column} with another row")
    shared = sql.unique(spec.asset, column)[1]
    failed = outcome.metadata["failing_rows"]
    outcome.metadata["duplicated_values"] = int(data.session(spec.asset).scalar(shared)) if failed else 0
    return outcome


def _not_null(spec: TestSpec, data: PartitionData) -> Outcome:
    return _rows_test(spec, data, f"have no {spec.params['column']}")


def _accepted_values(spec: TestSpec, data: PartitionData) -> Outcome:
    column, values = spec.params["column"], spec.params["values"]
    outcome = _rows_test(spec, data, f"have a {column} outside {values}")
    counts = sql.accepted_values(spec.asset, column, values)[1]
    found = data.session(spec.asset).all(counts) if outcome.metadata["failing_rows"] else []
    outcome.metadata["unexpected_values"] = {row["value"]: row["n"] for row in found}
    return outcome


def _relationships(spec: TestSpec, data: PartitionData) -> Outcome:
    source_ref = spec.params.get("from") or f"{spec.asset}.{spec.params['column']}"
    targets = spec.params["to"] if isinstance(spec.params["to"], list) else [spec.params["to"]]
    outcome = _rows_test(spec, data, f"of {source_ref} are in none of {targets}")
    outcome.metadata["from"], outcome.metadata["to"] = source_ref, ", ".join(targets)
    return outcome


def _row_count(spec: TestSpec, data: PartitionData) -> Outcome:
    count = _checked(data, spec.asset)
    low, high = spec.params.get("min"), spec.params.get("max")
    passed = (low is None or count >= low) and (high is None or count <= high)
    bounds = f"min {low if low is not None else '-'}, max {high if high is not None else '-'}"
    return Outcome(passed, f"{count} rows ({bounds})", {"row_count": count, "bounds": bounds})


def expression_of(spec: TestSpec) -> str:
    """The test's SQL boolean; under a column, dbt_utils' form: the column, then the expression."""
    expression = str(spec.params["expression"])
    column = spec.params.get("column")
    return f"{sql.column_sql(column)} {expression}" if column else expression


def _expression_is_true(spec: TestSpec, data: PartitionData) -> Outcome:
    table, expression = spec.params.get("table", spec.asset), expression_of(spec)
    if table == METRICS_TABLE:
        return _metrics_expression(spec, data, expression)
    outcome = _rows_test(spec, data, f"fail `{expression}`")
    outcome.metadata["expression"] = expression
    return outcome


def named_metrics(spec: TestSpec) -> list[str]:
    """The metrics of its asset an expression over the metrics row names: the values its outcome shows."""
    return [name for name in METRICS[spec.asset] if _names(expression_of(spec), name)]


def _metrics_query(spec: TestSpec) -> str:
    """An expression over the metrics row as one row: the metrics it names, and whether it holds."""
    # Only the metrics it names are computed (DuckDB drops a view's aggregates the query does not read).
    columns = "".join(f"{sql.quote(name)}, " for name in named_metrics(spec))
    return f"SELECT {columns}({expression_of(spec)}) IS TRUE AS {sql.quote(RESULT)} FROM {METRICS_TABLE}"


def _metrics_expression(spec: TestSpec, data: PartitionData, expression: str) -> Outcome:
    """An expression over the one-row metrics table, judged and shown with the metrics it names, in one query."""
    row = found(spec, data, _metrics_query(spec))
    passed = bool(row.pop(RESULT))
    shown = [plain(row)] if not passed else []
    outcome = rows_outcome(spec, 1, shown, f"fail `{expression}`", count=0 if passed else 1)
    named = {k: plain(v) for k, v in row.items()}
    outcome.summary = f"`{expression}` is {str(passed).lower()}" + (f" with {named}" if named else "")
    outcome.metadata.update({"expression": expression, **{f"value.{k}": v for k, v in sorted(named.items())}})
    return outcome


def _names(expression: str, name: str) -> bool:
    return re.search(rf"(?<![\w.\"]){re.escape(name)}(?![\w\"])|\"{re.escape(name)}\"", expression) is not None


def _singular(spec: TestSpec, data: PartitionData) -> Outcome:
    count, sample = failing_rows(spec, data, spec.params["sql"])
    passed = count <= spec.params.get("max_failing", 0)
    summary = f"{count} failing rows returned by {Path(spec.file).name}"
    if not passed:
        summary += f" (allowed: at most {spec.params.get('max_failing', 0)})"
    return Outcome(passed, summary, {"failing_rows": count, "sample": sample})


# Test type -> function, for the generic (dbt-style) tests; the registry adds the domain tests.
GENERIC_TESTS: dict[str, Implementation] = {
    "unique": _unique,
    "not_null": _not_null,
    "accepted_values": _accepted_values,
    "relationships": _relationships,
    "row_count": _row_count,
    "expression_is_true": _expression_is_true,
    "singular": _singular,
}
