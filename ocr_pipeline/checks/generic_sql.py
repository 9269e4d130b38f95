"""The SQL each generic test becomes: one query returning the failing rows, in the order of the table, plus the
small aggregates some tests report beside them. docs/quality.md shows these queries."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ocr_pipeline.checks.sql_tables import KEY_COLUMNS, METRICS_TABLE, column_sql, column_type, quote
from ocr_pipeline.checks.table_slots import ROW, ordered_name


def literal(value: Any) -> str:
    """A YAML value as a SQL literal (strings quoted, booleans and null as SQL's)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"'{value}'::DOUBLE"
    return "'" + str(value).replace("'", "''") + "'"


def shown(dataset: str, extra: str | None = None) -> str:
    """The columns a failing row is shown by: the table's identifying columns, then the column under test."""
    paths = list(KEY_COLUMNS.get(dataset, []))
    if extra is not None and extra not in paths:
        paths.append(extra)
    return ", ".join(f"{column_sql(p)} AS {quote(p)}" for p in paths) or "*"


def rows_of(dataset: str) -> str:
    """The table under its own name with its row numbers (`rowid`), for a FROM clause; `metrics` as it is."""
    return quote(dataset) if dataset == METRICS_TABLE else f"{quote(ordered_name(dataset))} AS {quote(dataset)}"


def ordered(dataset: str) -> str:
    """The ORDER BY that lists failing rows as the file holds them (the metrics table is one row, a view)."""
    return "" if dataset == METRICS_TABLE else f" ORDER BY {ROW}"


def row_count(dataset: str) -> str:
    """`row_count`, and the rows a row test checked."""
    return f"SELECT count(*) FROM {quote(dataset)}"


@dataclass(frozen=True)
class RowCheck:
    """A row test as SQL: the rows of `dataset` for which `predicate` holds fail, shown by the table's identifying
    columns and `extra`; `zero_when_none_fail`, if given, is a cheaper aggregate than counting them that is 0 exactly
    when none does (scan_plan.py)."""

    dataset: str
    predicate: str
    extra: str | None = None
    zero_when_none_fail: str | None = None

    @property
    def none_fail(self) -> str:
        """An aggregate over the table that is 0 exactly when no row fails."""
        return self.zero_when_none_fail or f"count(*) FILTER (WHERE {self.predicate})"

    @property
    def columns(self) -> list[str]:
        """The column paths a failing row is shown by."""
        keys = list(KEY_COLUMNS.get(self.dataset, []))
        return keys + ([self.extra] if self.extra is not None and self.extra not in keys else [])

    @property
    def query(self) -> str:
        """The failing rows, in the order of the table."""
        return (
            f"SELECT {shown(self.dataset, self.extra)} FROM {rows_of(self.dataset)} WHERE {self.predicate}"
            + ordered(self.dataset)
        )


def not_null(dataset: str, column: str) -> RowCheck:
    """`not_null`: the rows whose column is null."""
    return RowCheck(dataset, f"{column_sql(column)} IS NULL")


def unique(dataset: str, column: str) -> tuple[RowCheck, str]:
    """`unique`: the rows whose (non-null) value another row shares; and how many values are shared."""
    col = column_sql(column)
    shared = f"SELECT {col} FROM {quote(dataset)} WHERE {col} IS NOT NULL GROUP BY ALL HAVING count(*) > 1"
    # No value shared exactly when the non-null values are as many as the distinct ones (both group as GROUP BY
    # does): a count in the table's one scan rather than a grouping and a join. Text is counted in a list (its
    # values equal byte for byte either way) without a hash table of DuckDB's buffer pool, which costs a fraction
    # of a millisecond each and slows every later query of the process a little (its eviction queue grows);
    # other types are counted DISTINCT, whose equality is GROUP BY's (NaN, -0.0) where a list's may not be.
    if _text(dataset, column):
        distinct = f"count({col}) - coalesce(list_unique(list({col})), 0)"
    else:
        distinct = f"count({col}) - count(DISTINCT {col})"
    return RowCheck(dataset, f"{col} IN ({shared})", column, distinct), f"SELECT count(*) FROM ({shared})"


def _text(dataset: str, path: str) -> bool:
    """Whether a column is declared text (whose values a list compares as a GROUP BY or a join does)."""
    kind = column_type(dataset, path)
    return kind is not None and (pa.types.is_string(kind) or pa.types.is_large_string(kind))


def accepted_values(dataset: str, column: str, values: list[Any]) -> tuple[RowCheck, str]:
    """`accepted_values`: the rows whose value is outside the list (nulls are not judged, as in dbt); and the ten
    most common unexpected values with their counts."""
    col = column_sql(column)
    outside = f"{col} IS NOT NULL AND {col} NOT IN ({', '.join(literal(v) for v in values) or 'NULL'})"
    counts = (
        f"SELECT CAST({col} AS VARCHAR) AS value, count(*) AS n FROM {rows_of(dataset)} WHERE {outside} "
        f"GROUP BY ALL ORDER BY n DESC, min({ROW}) LIMIT 10"
    )
    return RowCheck(dataset, outside, column), counts


def split(ref: str) -> tuple[str, str]:
    """`dataset.column.path` -> (dataset, `column.path`)."""
    dataset, _, path = ref.partition(".")
    return dataset, path


def relationships(source_ref: str, targets: list[str]) -> RowCheck:
    """`relationships`: the rows of `source_ref` whose (non-null) value is in none of the target columns."""
    dataset, path = split(source_ref)
    pairs = [split(target) for target in targets]
    known = " UNION ALL ".join(
        f"SELECT {column_sql(p)} FROM {quote(d)} WHERE {column_sql(p)} IS NOT NULL" for d, p in pairs
    )
    col = column_sql(path)
    none_fail = None
    if _text(dataset, path) and all(_text(d, p) for d, p in pairs):
        # None fails exactly when the target values hold every source value: text compared in lists, byte for byte
        # as the join compares it, without the join's hash table of the buffer pool (unique() says why).
        lists = ", ".join(f"coalesce((SELECT list({column_sql(p)}) FROM {quote(d)}), [])" for d, p in pairs)
        values = f"coalesce(list({col}) FILTER (WHERE {col} IS NOT NULL), [])"
        none_fail = f"CASE WHEN list_has_all(flatten([{lists}]), {values}) THEN 0 ELSE 1 END"
    return RowCheck(dataset, f"{col} IS NOT NULL AND {col} NOT IN ({known})", path, none_fail)


def expression_is_true(dataset: str, expression: str) -> RowCheck:
    """`expression_is_true`: the rows for which the SQL boolean is false or null (dbt_utils' test)."""
    return RowCheck(dataset, f"({expression}) IS NOT TRUE")


def expression_type(dataset: str, expression: str) -> str:
    """The expression alone over the table, to check when it loads that it is a boolean."""
    return f"SELECT ({expression}) AS value FROM {rows_of(dataset)}"
