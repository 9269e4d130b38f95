"""Every query of a suite parsed and bound when the code location loads, against empty tables of the real columns:
a syntax error, an unknown table or column, or an expression that is not a boolean fails the load with file:line."""

from __future__ import annotations

import re

import duckdb
import pyarrow as pa

from ocr_pipeline.checks import generic_sql as sql
from ocr_pipeline.checks.declared import Suite, TestSpec
from ocr_pipeline.checks.domain_tests import ACCOUNTING_SQL
from ocr_pipeline.checks.generic_tests import expression_of, row_check
from ocr_pipeline.checks.sql_session import SqlSession, first_line, line_of
from ocr_pipeline.checks.sql_tables import DATASETS, METRICS_TABLE, SCHEMAS

TABLES = (*DATASETS, METRICS_TABLE)


def _empty(dataset: str) -> pa.Table:
    return SCHEMAS[dataset].empty_table()


def queries(test: TestSpec) -> list[str]:
    """The queries a test runs (none for the tests written in Python)."""
    p, asset = test.params, test.asset
    check = row_check(test)
    if check is not None:
        extra = {"unique": lambda: [sql.unique(asset, p["column"])[1]],
                 "accepted_values": lambda: [sql.accepted_values(asset, p["column"], p["values"])[1]]}  # fmt: skip
        return [check.query, *extra.get(test.type, list)()]
    if test.type == "row_count":
        return [sql.row_count(asset)]
    if test.type == "expression_is_true":  # over the metrics row
        return [f"SELECT * FROM {METRICS_TABLE} WHERE ({expression_of(test)}) IS NOT TRUE"]
    if test.type == "singular":
        return [p["sql"]]
    if test.type == "inventory_accounting":
        return [ACCOUNTING_SQL]
    return []


def _statement(test: TestSpec, query: str) -> None:
    """A singular test is one SELECT: anything else (a CREATE, a SET, two statements) could change the session."""
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise test.fail(_message(test, exc), _file_line(test, exc)) from exc
    if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
        kinds = ", ".join(s.type.name for s in statements) or "nothing"
        raise test.fail(f"a singular test is one SELECT query returning the failing rows (found: {kinds})")


def _message(test: TestSpec, error: BaseException) -> str:
    """DuckDB's first line; an unknown table named as such, with the tables there are."""
    text = first_line(error)
    unknown = re.match(r"Catalog Error: Table with name (\S+) does not exist", text)
    if unknown:
        return f"{test.type}: unknown table {unknown.group(1)!r} (tables: {', '.join(TABLES)})"
    return f"{test.type}: {text}"


def _file_line(test: TestSpec, error: BaseException) -> int | None:
    """Where in a singular test's file the error is: DuckDB's `LINE n` (the query is the whole file), else the first
    line after the header that spells the name the message quotes. YAML tests have their own line."""
    if test.type != "singular":
        return None
    line = line_of(error)
    if line is not None:
        return line
    text = first_line(error)
    quoted = re.search(r'"([^"]+)"', text) or re.search(r"Table with name (\S+) ", text)
    if quoted is None:
        return None
    lines = str(test.params["sql"]).splitlines()
    pattern = re.compile(rf"(?<![\w.]){re.escape(quoted.group(1).split('.')[-1])}(?!\w)", re.I)
    hits = [n for n, body in enumerate(lines, 1) if pattern.search(body) and not body.lstrip().startswith("--")]
    return hits[0] if hits else None


def validate_test(test: TestSpec, session: SqlSession) -> None:
    """Bind each query of one test; ChecksConfigError at its declaration (or its file's line) if one cannot be
    bound."""
    for query in queries(test):
        if test.type == "singular":
            _statement(test, query)
        try:
            session.bind(query)
        except duckdb.Error as exc:
            raise test.fail(_message(test, exc), _file_line(test, exc)) from exc
    if test.type == "expression_is_true":
        kinds = session.bind(sql.expression_type(test.params.get("table", test.asset), expression_of(test)))
        if kinds != ["BOOLEAN"]:
            raise test.fail(f"expression_is_true: `{expression_of(test)}` is {kinds[0]}, not a boolean")


def validate_suite(suite: Suite) -> None:
    """Bind every query of every test in a session of empty tables (`metrics` is each test's asset's)."""
    session = SqlSession(_empty)
    try:
        for asset, tests in suite.tests.items():
            for test in tests:
                validate_test(test, session.use(asset))
    finally:
        session.close()
