"""Every query of a suite parsed and bound when the code location loads, against empty tables of the real columns:
a syntax error, an unknown table or column, or an expression that is not a boolean fails the load with file:line."""

from __future__ import annotations

import re
from functools import cache

import duckdb
import pyarrow as pa

from ocr_pipeline.checks import generic_sql as sql
from ocr_pipeline.checks.declared import Suite, TestSpec
from ocr_pipeline.checks.generic_tests import expression_of, row_check
from ocr_pipeline.checks.scan_plan import judgement, scan_query, scans
from ocr_pipeline.checks.sql_session import SqlSession, first_line, line_of, one_statement
from ocr_pipeline.checks.sql_tables import DATASETS, METRICS_TABLE, SCHEMAS

TABLES = (*DATASETS, METRICS_TABLE)


@cache
def _empty(dataset: str) -> pa.Table:
    return SCHEMAS[dataset].empty_table()


def queries(test: TestSpec) -> list[str]:
    """The queries a test runs whose text its declaration writes: none for the tests in Python, nor for those whose
    SQL is the engine's own whatever the file says (row_count's count, the rates, the languages, the inventory
    accounting: their own tests bind them, once, rather than every load)."""
    p, asset = test.params, test.asset
    check = row_check(test)
    if check is not None:
        extra = {"unique": lambda: [sql.unique(asset, p["column"])[1]],
                 "accepted_values": lambda: [sql.accepted_values(asset, p["column"], p["values"])[1]]}  # fmt: skip
        return [check.query, *extra.get(test.type, list)()]
    if test.type == "expression_is_true":  # over the metrics row
        return [f"SELECT * FROM {METRICS_TABLE} WHERE ({expression_of(test)}) IS NOT TRUE"]
    if test.type == "singular":
        return [p["sql"]]
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


def _one_expression(test: TestSpec) -> None:
    """An expression_is_true test's expression is one expression: text that closes its parentheses and begins
    another statement would be run by the binding itself, and in the connections every later evaluation reuses."""
    if test.type == "expression_is_true" and not one_statement(f"SELECT ({expression_of(test)})"):
        raise test.fail(f"expression_is_true: `{expression_of(test)}` is not one SQL expression")


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


def validate_test(test: TestSpec, session: SqlSession, judged: bool = False, boolean: bool = False) -> None:
    """Bind each query of one test; ChecksConfigError at its declaration (or its file's line) if one cannot be bound.

    `judged`: its scan bound with the others of its table (its own queries read the same columns through the same
    predicate); `boolean`: its expression already found a boolean.
    """
    for query in [] if judged else queries(test):
        if test.type == "singular":
            _statement(test, query)
        _bind(test, session, query)
    if test.type == "expression_is_true" and not boolean:
        kinds = _bind(test, session, sql.expression_type(test.params.get("table", test.asset), expression_of(test)))
        if kinds != ["BOOLEAN"]:
            raise test.fail(f"expression_is_true: `{expression_of(test)}` is {kinds[0]}, not a boolean")


def _bind(test: TestSpec, session: SqlSession, query: str) -> list[str]:
    """The query's column types; ChecksConfigError at the test's declaration (or its file's line) if it cannot bind."""
    try:
        return session.bind(query)
    except duckdb.Error as exc:
        raise test.fail(_message(test, exc), _file_line(test, exc)) from exc


def _bound(session: SqlSession, query: str) -> list[str] | None:
    """The query's column types, or None where it does not bind (each test is then bound alone, to say which)."""
    try:
        return session.bind(query)
    except duckdb.Error:
        return None


def _per_row(test: TestSpec) -> bool:
    """An expression_is_true test judged on each row of its table (not on the metrics row)."""
    return test.type == "expression_is_true" and test.params.get("table", test.asset) != METRICS_TABLE


def _bound_together(session: SqlSession, tests: list[TestSpec]) -> tuple[set[str], set[str]]:
    """The row tests whose table's scan (scan_plan.py) binds, and the expression_is_true tests found boolean, in
    about one statement per table: a scan's per-row expressions are typed in it (any_value keeps a value's type),
    the others (over the metrics row) in one statement of their own. Whatever does not bind together is left to be
    bound alone."""
    judged: set[str] = set()
    kinds: dict[str, str] = {}
    plan = judgement(tests)
    entries = plan[0] if plan is not None else []
    for table, columns in scans(entries).items():
        scanned = [test for _, test, wanted in entries if wanted.table == table and row_check(test) is not None]
        typed = [test for test in scanned if _per_row(test)]
        values = [f"any_value(({expression_of(t)})) AS {sql.quote(t.name)}" for t in typed]
        found = _bound(session, scan_query(table, [*columns, *values]))
        if found is not None:
            judged.update(test.name for test in scanned)
            kinds.update({t.name: kind for t, kind in zip(typed, found[len(found) - len(typed) :], strict=True)})
    by_table: dict[str, list[TestSpec]] = {}
    for test in tests:
        if test.type == "expression_is_true" and test.name not in kinds:
            by_table.setdefault(test.params.get("table", test.asset), []).append(test)
    for table, others in by_table.items():
        values = [f"({expression_of(t)}) AS {sql.quote(t.name)}" for t in others]
        found = _bound(session, f"SELECT {', '.join(values)} FROM {sql.rows_of(table)}")
        if found is not None:
            kinds.update(zip([t.name for t in others], found, strict=True))
    return judged, {name for name, kind in kinds.items() if kind == "BOOLEAN"}


def validate_suite(suite: Suite) -> None:
    """Bind every query of every test in a session of empty tables (`metrics` is each test's asset's): the table scans
    of scan_plan.py's statements, the expressions of a table in one statement, then each test's other queries alone.

    A DuckDB bind (0.5-1 ms) costs about as much as the interpreter's whole check of a test: binding each query made
    loading the shipped checks take 18 ms (27 binds), binding the scans 7 ms (7). A row test's other queries read the
    columns of its scan through the same predicate, so they bind when the scan does; whatever does not bind together
    is bound again test by test, so an error still names its test and line. The statement that joins an asset's
    scans and one-row queries is not bound here (binding one grows faster than its parts): its parts are, and where
    they do not nest (a singular query with a comment after its semicolon) it fails and each test runs alone.
    """
    for tests in suite.tests.values():
        for test in tests:
            _one_expression(test)
    session = SqlSession(_empty)
    try:
        for asset, tests in suite.tests.items():
            judged, boolean = _bound_together(session.use(asset), tests)
            for test in tests:
                # An expression that bound over its table binds in its own queries too (the same predicate).
                covered = test.name in judged or test.name in boolean
                validate_test(test, session, judged=covered, boolean=test.name in boolean)
    finally:
        session.close()
