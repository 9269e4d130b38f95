"""Data tests in SQL: singular `.sql` tests, expression_is_true, and every bad query failing the load with file:line."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import duckdb
import pytest

from ocr_pipeline.checks.generic_tests import Outcome
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.registry import evaluate
from ocr_pipeline.checks.spec import ChecksConfigError, load_dir
from ocr_pipeline.checks.sql_session import QueryLimits
from ocr_pipeline.workspace.storage import LocalWorkspace


class Tables(PartitionData):
    """A partition whose datasets are the given rows (no files read)."""

    def __init__(self, tmp_path: Path, data: dict[str, list[dict[str, Any]]]) -> None:
        super().__init__(LocalWorkspace(tmp_path), "g000001")
        self.data = data

    def _load(self, dataset: str) -> list[dict[str, Any]]:
        return self.data.get(dataset, [])


PAGES = [
    {"source": "/in/a.pdf", "page_num": 1, "text": "One.", "primary_language": "en"},
    {"source": "/in/a.pdf", "page_num": 2, "text": " \n", "primary_language": "en"},
    {"source": "/in/b.pdf", "page_num": 1, "text": None, "primary_language": None},
    {"source": "/in/a.pdf", "page_num": 2, "text": "Two.", "primary_language": "de"},
]


def checks_folder(tmp_path: Path, yml: str = "", sql: dict[str, str] | None = None) -> Path:
    """A checks folder with one YAML file of vlm_ocr_outputs tests and the given singular tests."""
    folder = tmp_path / "checks"
    (folder / "tests").mkdir(parents=True, exist_ok=True)
    if yml:
        body = textwrap.indent(textwrap.dedent(yml), "      ")
        (folder / "t.yml").write_text(f"assets:\n  vlm_ocr_outputs:\n    tests:\n{body}")
    for name, text in (sql or {}).items():
        (folder / "tests" / name).write_text(textwrap.dedent(text))
    return folder


def run(tmp_path: Path, folder: Path, data: dict[str, list[dict[str, Any]]]) -> dict[str, Outcome]:
    """Every test of the folder on hand-made tables; outcomes by test name."""
    partition = Tables(tmp_path, data)
    try:
        return {t.name: evaluate(t, partition) for tests in load_dir(folder).tests.values() for t in tests}
    finally:
        partition.close()


def test_a_singular_test_returns_the_failing_rows(tmp_path: Path) -> None:
    folder = checks_folder(
        tmp_path,
        sql={
            "duplicate_pages.sql": """
                -- asset: vlm_ocr_outputs
                -- blocking: true
                -- description: each page has one result
                SELECT source, page_num, count(*) AS results FROM vlm_ocr_outputs GROUP BY ALL HAVING count(*) > 1
            """,
            "blank_pages.sql": """
                -- asset: vlm_ocr_outputs
                -- severity: warn
                SELECT p.source, p.page_num FROM vlm_ocr_outputs p
                JOIN page_images i USING (source, page_num)
                WHERE is_blank(p.text) ORDER BY p.source, p.page_num
            """,
        },
    )
    [blank, duplicates] = load_dir(folder).tests["vlm_ocr_outputs"]
    assert (duplicates.name, duplicates.type, duplicates.blocking, duplicates.line) == (
        "duplicate_pages",
        "singular",
        True,
        2,
    )
    assert duplicates.description == "each page has one result" and blank.severity == "warn"
    images = [{"source": p["source"], "page_num": p["page_num"]} for p in PAGES]
    got = run(tmp_path, folder, {"vlm_ocr_outputs": PAGES, "page_images": images})
    assert not got["duplicate_pages"].passed and got["duplicate_pages"].metadata["failing_rows"] == 1
    assert got["duplicate_pages"].metadata["sample"] == [{"source": "/in/a.pdf", "page_num": 2, "results": 2}]
    # A join of two tables: the blank page twice (two results of its page match it) and the page without text.
    assert got["blank_pages"].metadata["failing_rows"] == 3
    assert "3 failing rows returned by blank_pages.sql" in got["blank_pages"].summary
    assert run(tmp_path, folder, {"vlm_ocr_outputs": PAGES[:1], "page_images": images})["duplicate_pages"].passed


def test_expression_is_true_per_row_per_column_and_on_the_metrics_row(tmp_path: Path) -> None:
    folder = checks_folder(
        tmp_path,
        """
        - expression_is_true: {name: has_text, expression: "NOT is_blank(text)", max_failing: 1}
        - expression_is_true: {name: english, expression: "primary_language = 'en'"}
        - expression_is_true: {name: few_documents, table: metrics, expression: "documents <= 1", severity: warn}
        """,
    )
    (folder / "c.yml").write_text(
        "assets:\n  vlm_ocr_outputs:\n    columns:\n      page_num:\n"
        "        - expression_is_true: {name: positive_page, expression: '> 1'}\n"
    )
    got = run(tmp_path, folder, {"vlm_ocr_outputs": PAGES})
    assert not got["has_text"].passed and got["has_text"].metadata["failing_rows"] == 2
    assert [r["page_num"] for r in got["has_text"].metadata["sample"]] == [2, 1]
    # Null is not true: the page without a language fails as the German one does.
    assert got["english"].metadata["failing_rows"] == 2
    assert not got["few_documents"].passed and got["few_documents"].metadata["value.documents"] == 2
    assert "`documents <= 1` is false with {'documents': 2}" in got["few_documents"].summary
    assert got["positive_page"].metadata["expression"] == '"page_num" > 1'
    assert got["positive_page"].metadata["failing_rows"] == 2


@pytest.mark.parametrize(
    ("sql", "line", "message"),
    [
        ("-- asset: vlm_ocr_outputs\nSELECT source\nFROM vlm_ocr_outputs\nWHERE page_num >\n", 4,
         "syntax error at or near"),
        ("-- asset: vlm_ocr_outputs\nSELECT source\nFROM vlm_ocr_outputz\n", 3, "unknown table 'vlm_ocr_outputz'"),
        ("-- asset: vlm_ocr_outputs\nSELECT source, nope\nFROM vlm_ocr_outputs\n", 2,
         'Referenced column "nope" not found'),
        ("-- asset: vlm_ocr_outputs\nCOPY vlm_ocr_outputs TO 'x.csv'\n", 1, "one SELECT query"),
        ("-- asset: vlm_ocr_outputs\nSELECT 1; DROP VIEW vlm_ocr_outputs\n", 1, "one SELECT query"),
        ("-- asset: vlm_ocr_outputs\nSELECT * FROM read_csv('/etc/passwd')\n", 2, "disabled by configuration"),
        ("SELECT 1\n", 1, "starts with `-- asset: <name>`"),
        ("-- asset: vlm_ocr_outputs\n-- blockin: true\nSELECT 1\n", 2, "unknown setting 'blockin'"),
        ("-- asset: pdf_inventory\nSELECT 1\n", 1, "unknown or unpartitioned asset"),
    ],
)  # fmt: skip
def test_a_bad_singular_test_fails_the_load_with_file_and_line(
    tmp_path: Path, sql: str, line: int, message: str
) -> None:
    folder = checks_folder(tmp_path, sql={"bad.sql": sql})
    with pytest.raises(ChecksConfigError) as exc:
        load_dir(folder)
    assert str(exc.value).startswith(f"{folder / 'tests' / 'bad.sql'}:{line}: "), str(exc.value)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)  # one line, DuckDB's excerpt of the query left out


@pytest.mark.parametrize(
    ("test", "message"),
    [
        ('expression_is_true: {expression: "nope > 1"}', 'Referenced column "nope" not found'),
        ('expression_is_true: {expression: "page_num + 1"}', "is INTEGER, not a boolean"),
        ('expression_is_true: {expression: "pages > 1", table: metrics}', ""),
        ('expression_is_true: {expression: "pagez > 1", table: metrics}', 'Referenced column "pagez" not found'),
        ('expression_is_true: {expression: "x", table: elsewhere}', "`table` must be one of"),
        ("not_null: {column: nope}", 'Referenced column "nope" not found'),
        ("relationships: {column: source, to: page_images.nope}", 'Referenced column "nope" not found'),
        ("accepted_values: {column: rotation_correction, values: [a]}", ""),
        ('expression: {row: "nope.x > 1"}', 'Referenced table "nope" not found'),
    ],
)
def test_a_bad_yaml_query_fails_the_load_with_its_line(tmp_path: Path, test: str, message: str) -> None:
    folder = checks_folder(tmp_path, f"- row_count: {{min: 0}}\n- {test}\n")
    if not message:  # these bind: the values are compared when the check runs
        load_dir(folder)
        return
    with pytest.raises(ChecksConfigError) as exc:
        load_dir(folder)
    assert str(exc.value).startswith(f"{folder / 't.yml'}:5: ") and message in str(exc.value), str(exc.value)


def test_old_expressions_give_the_old_answers(tmp_path: Path) -> None:
    folder = checks_folder(
        tmp_path,
        """
        - expression: {name: not_null_text, row: "not text is None"}
        - expression: {name: ordering_with_null, row: "not (page_num > 1)"}
        - expression: {name: same_null, row: "primary_language == None or primary_language == 'en'"}
        - expression: {name: stripped, row: "len(strip(text)) > 0"}
        - expression: {name: shares, sql_like: "share(primary_language == 'en') == 0.4 and count_distinct(source) == 2"}
        - expression: {name: empty_rate, sql_like: "count_if(text is None) / count() <= 0.25"}
        """,
    )
    rows = [*PAGES, {"source": "/in/b.pdf", "page_num": None, "text": "x", "primary_language": "fr"}]
    got = run(tmp_path, folder, {"vlm_ocr_outputs": rows})
    failing = {name: o.metadata["failing_rows"] for name, o in got.items()}
    # Python's rules: `None > 1` is False (so its `not` passes), `None == None` is True, " \n".strip() is "".
    assert failing == {
        "not_null_text": 1, "ordering_with_null": 2, "same_null": 2, "stripped": 2, "shares": 0, "empty_rate": 0,
    }  # fmt: skip


def test_a_query_past_its_time_or_memory_limit_fails_its_check_and_the_limits_are_locked(tmp_path: Path) -> None:
    folder = checks_folder(
        tmp_path,
        sql={
            "slow.sql": "-- asset: vlm_ocr_outputs\nSELECT r.range FROM range(100000000000) r WHERE r.range < 0\n",
            "greedy.sql": "-- asset: vlm_ocr_outputs\nSELECT list(range) AS l FROM range(100000000)\n",
        },
    )
    partition = Tables(tmp_path, {"vlm_ocr_outputs": PAGES})
    partition.limits = QueryLimits(memory_limit="64MB", threads=1, timeout_s=0.5)
    try:
        tests = {t.name: t for t in load_dir(folder).tests["vlm_ocr_outputs"]}
        slow, greedy = evaluate(tests["slow"], partition), evaluate(tests["greedy"], partition)
        session = partition.session("vlm_ocr_outputs")
        with pytest.raises(duckdb.Error, match="locked"):
            session.connection.execute("SET memory_limit = '100GB'")
        with pytest.raises(duckdb.Error, match="locked"):
            session.connection.execute("SET enable_external_access = true")
    finally:
        partition.close()
    assert not slow.passed and slow.summary == "the query ran past its 0.5 s limit and was stopped"
    assert not greedy.passed and greedy.summary.startswith("the query needed more than 64MB")
