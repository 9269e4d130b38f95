"""The SQL tests of an asset judged in one statement (checks/scan_plan.py): one query where they pass, and outcomes
equal to running each test on its own, failing rows and all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ocr_pipeline.checks.registry import evaluate, evaluate_all
from ocr_pipeline.checks.spec import ChecksConfigError, load_dir
from ocr_pipeline.checks.sql_session import SqlSession
from tests.unit.checks.test_sql_checks import PAGES, Tables, checks_folder

TESTS = """
- not_null: {column: source, name: has_source}
- unique: {column: text, name: one_text, max_failing: 2}
- accepted_values: {column: primary_language, values: [en, de], name: languages}
- expression_is_true: {name: has_text, expression: "NOT is_blank(text)"}
- fallback_rate: {max: 0.5}
- expression_is_true: {name: few_pages, table: metrics, expression: "pages <= 5 AND documents = 2"}
- language_distribution: {expected: [en], min_share: 0.5}
- relationships: {name: rendered, column: source, to: page_images.source}
"""
# The first page's text twice: two rows share a value, within one_text's max_failing.
ROWS = [*PAGES, {**PAGES[0], "page_num": 3}]
# Rendered pages of a.pdf alone: b.pdf's result is of no rendered input.
IMAGES = [{"source": "/in/a.pdf", "page_num": 1}]
# Singular tests: one whose rows fail (a page with two results), one that finds none (no page in French).
HEADER = "-- asset: vlm_ocr_outputs\n"
SINGULAR = {
    "twice.sql": f"{HEADER}SELECT source, page_num FROM vlm_ocr_outputs GROUP BY ALL HAVING count(*) > 1;\n",
    "french.sql": f"{HEADER}SELECT source FROM vlm_ocr_outputs WHERE primary_language = 'fr'\n",
}


@pytest.fixture
def queries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every query a session runs, in order."""
    ran: list[str] = []
    execute = SqlSession._execute

    def spy(self: SqlSession, sql: str) -> Any:
        ran.append(sql)
        return execute(self, sql)

    monkeypatch.setattr(SqlSession, "_execute", spy)
    return ran


@pytest.mark.parametrize(
    "ending", ["", "-- the end: a query whose semicolon is followed by a comment does not nest, and runs alone"]
)
def test_one_statement_finds_what_each_test_finds_alone(tmp_path: Path, queries: list[str], ending: str) -> None:
    sql = {**SINGULAR, "twice.sql": SINGULAR["twice.sql"].replace(";\n", f";{ending}\n")}
    tests = load_dir(checks_folder(tmp_path, TESTS, sql)).tests["vlm_ocr_outputs"]
    partition = Tables(tmp_path, {"vlm_ocr_outputs": ROWS, "page_images": IMAGES})
    together = {test.name: outcome for test, outcome in evaluate_all(tests, partition)}
    partition.close()
    if not ending:
        # The statement, then the queries of the four tests with failing rows: unique's rows and shared values,
        # has_text's rows, twice.sql's rows, rendered's rows.
        assert len(queries) == 6
    alone = Tables(tmp_path, {"vlm_ocr_outputs": ROWS, "page_images": IMAGES})
    for test in tests:
        assert together[test.name] == evaluate(test, alone), test.name
    alone.close()
    assert together["one_text"].passed and together["one_text"].metadata["failing_rows"] == 2
    assert not together["has_text"].passed and len(together["has_text"].metadata["sample"]) == 2
    assert not together["twice"].passed and together["french"].passed
    assert not together["rendered"].passed and together["rendered"].metadata["failing_rows"] == 1
    assert together["few_pages"].passed and together["language_distribution"].metadata["distribution"] == {
        "en": 3, "de": 1, "none": 1
    }  # fmt: skip


def test_tests_that_pass_cost_one_query(tmp_path: Path, queries: list[str]) -> None:
    tests = load_dir(checks_folder(tmp_path, TESTS)).tests["vlm_ocr_outputs"]
    passing = [t for t in tests if t.name in {"has_source", "languages", "fallback_rate", "few_pages", "rendered"}]
    partition = Tables(tmp_path, {"vlm_ocr_outputs": ROWS, "page_images": [*IMAGES, {"source": "/in/b.pdf"}]})
    outcomes = [outcome for _, outcome in evaluate_all(passing, partition)]
    partition.close()
    assert all(o.passed and o.metadata["sample"] == [] for o in outcomes) and len(queries) == 1


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('expression_is_true: {name: bad, expression: "nope > 1"}', 'Referenced column "nope" not found'),
        ('expression_is_true: {name: bad, expression: "page_num + 1"}', "is INTEGER, not a boolean"),
        ("not_null: {column: nope, name: bad}", 'Referenced column "nope" not found'),
    ],
)
def test_a_bad_test_among_a_tables_tests_fails_the_load_at_its_own_line(tmp_path: Path, bad: str, message: str) -> None:
    # The table's tests are bound as one scan when the checks load; one that spoils it is found by binding each alone.
    folder = checks_folder(tmp_path, f"{TESTS}- {bad}\n")
    with pytest.raises(ChecksConfigError) as exc:
        load_dir(folder)
    assert str(exc.value).startswith(f"{folder / 't.yml'}:13: ") and message in str(exc.value), str(exc.value)


def test_a_singular_pivot_is_refused_though_it_binds_nested(tmp_path: Path) -> None:
    # Counted inside parentheses a PIVOT binds, but DuckDB runs one without its values as two statements.
    sql = {"wide.sql": f"{HEADER}SELECT * FROM (PIVOT vlm_ocr_outputs ON primary_language USING count(*))\n"}
    folder = checks_folder(tmp_path, sql=sql)
    with pytest.raises(ChecksConfigError, match=r"wide.sql:1: a singular test is one SELECT query .*MULTI"):
        load_dir(folder)
