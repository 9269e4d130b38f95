"""The SQL tests of a table judged in one scan (checks/scan_plan.py): one query where they pass, and outcomes equal to
running each test on its own, failing rows and all."""

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
"""
# The first page's text twice: two rows share a value, within one_text's max_failing.
ROWS = [*PAGES, {**PAGES[0], "page_num": 3}]


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


def test_one_scan_finds_what_each_test_finds_alone(tmp_path: Path, queries: list[str]) -> None:
    tests = load_dir(checks_folder(tmp_path, TESTS)).tests["vlm_ocr_outputs"]
    partition = Tables(tmp_path, {"vlm_ocr_outputs": ROWS})
    together = {test.name: outcome for test, outcome in evaluate_all(tests, partition)}
    partition.close()
    # The scan, then the queries of the two tests with failing rows: unique's rows and shared values, has_text's rows.
    assert len(queries) == 4
    alone = Tables(tmp_path, {"vlm_ocr_outputs": ROWS})
    for test in tests:
        assert together[test.name] == evaluate(test, alone), test.name
    alone.close()
    assert together["one_text"].passed and together["one_text"].metadata["failing_rows"] == 2
    assert not together["has_text"].passed and len(together["has_text"].metadata["sample"]) == 2


def test_tests_that_pass_cost_one_query(tmp_path: Path, queries: list[str]) -> None:
    tests = load_dir(checks_folder(tmp_path, TESTS)).tests["vlm_ocr_outputs"]
    passing = [t for t in tests if t.name in {"has_source", "languages", "fallback_rate"}]
    partition = Tables(tmp_path, {"vlm_ocr_outputs": ROWS})
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
    assert str(exc.value).startswith(f"{folder / 't.yml'}:10: ") and message in str(exc.value), str(exc.value)
