"""Every query of a suite parsed and bound when the code location loads, against empty tables of the real columns:
a syntax error, an unknown table or column, or an expression that is not a boolean fails the load with file:line."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cache

import duckdb
import pyarrow as pa

from ocr_pipeline.checks import generic_sql as sql
from ocr_pipeline.checks.declared import Suite, TestSpec
from ocr_pipeline.checks.generic_tests import counted, expression_of, named_metrics, row_check
from ocr_pipeline.checks.scan_plan import scan_query
from ocr_pipeline.checks.sql_session import QueryError, SqlSession, first_line, identifiers, line_of, one_statement
from ocr_pipeline.checks.sql_tables import DATASETS, METRICS_TABLE, SCHEMAS, metrics_sql

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


def _pivots(sql: str) -> bool:
    """Whether a query says PIVOT anywhere but in its comments and strings (a PIVOT without its values is two
    statements to DuckDB, nested or not)."""
    return "pivot" in identifiers(sql) or any(
        kind == duckdb.token_type.keyword and sql[start : start + 5].upper() == "PIVOT"
        for start, kind in duckdb.tokenize(sql)
    )


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

    `judged`: its scan (or its counted query) bound with its asset's others (a row test's own queries read the same
    columns through the same predicate); `boolean`: its expression already found a boolean. A singular test's text
    was found one SELECT before (validate_suite).
    """
    for query in [] if judged else queries(test):
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
    """The query's column types, or None where it does not bind or nest (each test is then bound alone, to say
    which)."""
    try:
        return session.bind(query)
    except (duckdb.Error, QueryError):
        return None


def _per_row(test: TestSpec) -> bool:
    """An expression_is_true test judged on each row of its table (not on the metrics row)."""
    return test.type == "expression_is_true" and test.params.get("table", test.asset) != METRICS_TABLE


# A test by its asset and name (names are unique within an asset only).
Key = tuple[str, str]


@dataclass(frozen=True)
class _Part:
    """A statement bound at load: the tests its binding covers, and those whose expression its last columns type."""

    query: str
    width: int
    covered: tuple[Key, ...] = ()
    typed: tuple[Key, ...] = ()


def _parts(asset: str, tests: list[TestSpec]) -> list[_Part]:
    """An asset's table scans (scan_plan.py) with each row test's aggregate (a per-row expression typed instead:
    any_value keeps a value's type, and binds the expression as its aggregate would), its singular queries counted
    (as its statement runs them), and its expressions over the metrics row typed in one statement (over the metrics
    they name written out, so that every asset's parts bind together)."""
    by_table: dict[str, list[TestSpec]] = {}
    for test in tests:
        check = row_check(test)
        if check is not None:
            by_table.setdefault(check.dataset, []).append(test)
    parts = []
    for table, scanned in by_table.items():
        scanned.sort(key=_per_row)  # the typed expressions last
        columns = [f"any_value(({expression_of(t)}))" if _per_row(t) else _none_fail(t) for t in scanned]
        named = [f"{column} AS {sql.quote(str(n))}" for n, column in enumerate(columns)]
        typed = tuple((asset, t.name) for t in scanned if _per_row(t))
        parts.append(_Part(scan_query(table, named), len(named), tuple((asset, t.name) for t in scanned), typed))
    parts += [_Part(counted(t.params["sql"]), 1, covered=((asset, t.name),)) for t in tests if t.type == "singular"]
    on_metrics = [test for test in tests if test.type == "expression_is_true" and not _per_row(test)]
    if on_metrics:
        values = [f"({expression_of(t)}) AS {sql.quote(t.name)}" for t in on_metrics]
        metrics = dict.fromkeys(name for t in on_metrics for name in named_metrics(t))
        query = f"SELECT {', '.join(values)} FROM ({metrics_sql(asset, metrics)}) AS {METRICS_TABLE}"
        parts.append(_Part(query, len(values), typed=tuple((asset, t.name) for t in on_metrics)))
    return parts


def _none_fail(test: TestSpec) -> str:
    """A row test's aggregate in its asset's statement; a relationship's by the predicate its own query selects its
    rows with, which reads the same columns and binds at two thirds of the cost (one subquery, not one per target)."""
    check = row_check(test)
    assert check is not None
    return f"count(*) FILTER (WHERE {check.predicate})" if test.type == "relationships" else check.none_fail


def _bound_together(session: SqlSession, suite: Suite) -> tuple[set[Key], set[Key]]:
    """The row tests whose table's scan binds, and the expression_is_true tests found boolean: every asset's parts
    bound in one statement, or each alone where they do not bind together. Whatever does not bind is left to be bound
    test by test."""
    parts = [part for asset, tests in suite.tests.items() for part in _parts(asset, tests)]
    together = _bound(session, "SELECT * FROM " + ", ".join(f"({p.query})" for p in parts)) if len(parts) > 1 else None
    found: list[list[str] | None]
    if together is not None:
        ends = itertools.accumulate(part.width for part in parts)
        found = [together[end - part.width : end] for part, end in zip(parts, ends, strict=True)]
    else:
        found = [_bound(session, part.query) for part in parts]
    judged: set[Key] = set()
    kinds: dict[Key, str] = {}
    for part, types in zip(parts, found, strict=True):
        if types is not None:
            judged.update(part.covered)
            kinds.update(zip(part.typed, types[len(types) - len(part.typed) :], strict=True))
    return judged, {key for key, kind in kinds.items() if kind == "BOOLEAN"}


def validate_suite(suite: Suite) -> None:
    """Bind every query of every test in a session of empty tables (`metrics` is each test's asset's): every asset's
    table scans (scan_plan.py), singular queries and expressions in one statement, then each test's other queries.

    A DuckDB bind (0.2 ms and up) costs about as much as the interpreter's whole check of a test: binding each query
    made loading the shipped checks take 18 ms (27 binds), binding them together 5 ms (1). A row test's other queries
    read the columns of its scan through the same predicate, so they bind when the scan does; whatever does not bind
    together is bound part by part, then test by test, so an error still names its test and line. The statement
    that joins an asset's scans and one-row queries at run time is not bound here (the accounting's and the
    languages' SQL is the engine's own): its parts are, and where they do not nest (a singular query with a comment
    after its semicolon) it fails and each test runs alone.
    """
    for tests in suite.tests.values():  # before anything is bound: binding a text runs all but its last statement
        for test in tests:
            _one_expression(test)
    session = SqlSession(_empty)
    try:
        # A singular query bound counted is nested in parentheses: one statement, and one a subquery can be, which is
        # one SELECT, but for a PIVOT (DuckDB runs one as two statements); any other is parsed whole before it binds.
        judged, boolean = _bound_together(session, suite)
        for asset, tests in suite.tests.items():
            for test in tests:
                key = (asset, test.name)
                if test.type == "singular" and (key not in judged or _pivots(test.params["sql"])):
                    _statement(test, test.params["sql"])
                # An expression that bound over its table binds in its own queries too (the same predicate).
                validate_test(test, session.use(asset), judged=key in judged or key in boolean, boolean=key in boolean)
    finally:
        session.close()
