"""The checks' SQL reads each group's Arrow tables in place, through pooled connections whose prepared statements
are reused from one group to the next: never another group's rows, never a stale schema, nothing a check's text
could leave behind."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from ocr_pipeline.checks.spec import ChecksConfigError, load_dir
from ocr_pipeline.checks.sql_database import QueryLimits
from ocr_pipeline.checks.sql_session import QueryError, SqlSession

# Limits of their own: a pool (and database) no other test's sessions share.
LIMITS = QueryLimits(memory_limit="256MB", threads=1, timeout_s=10.0)
ORDERED = '"__vlm_ocr_outputs_with_rowid" AS vlm_ocr_outputs'
COUNT = f"SELECT count(*) AS n, max(page_num) AS last FROM {ORDERED}"
INT32 = pa.int32()


def pages(count: int, page_type: pa.DataType = INT32) -> pa.Table:
    """A vlm_ocr_outputs table of `count` pages of one input."""
    numbers = pa.array(range(1, count + 1), type=pa.int32()).cast(page_type)
    return pa.table({"source": ["/in/a.pdf"] * count, "page_num": numbers})


def session(table: pa.Table) -> SqlSession:
    """A session whose every table is `table`."""
    return SqlSession(lambda _: table, LIMITS).use("vlm_ocr_outputs")


def test_a_statement_prepared_for_one_group_reads_the_next_groups_rows() -> None:
    first = session(pages(3))
    assert first.all(COUNT) == [{"n": 3, "last": 3}]
    connection = first.connection
    first.close()
    second = session(pages(5))
    assert second.connection is connection  # the pooled connection, its statement prepared by the first group
    assert second.all(COUNT) == [{"n": 5, "last": 5}]
    second.close()
    # A table of other columns (a page number as text) is never read through the old statement: it is prepared again.
    third = session(pages(2, pa.string()))
    assert third.all(COUNT) == [{"n": 2, "last": "2"}]
    third.close()


def test_the_tables_are_read_in_file_order_and_show_no_row_numbers() -> None:
    table = pa.table({"source": ["/in/b.pdf", "/in/a.pdf", "/in/c.pdf"], "page_num": pa.array([2, 1, 3], pa.int32())})
    data = session(table)
    try:
        later_pages = data.all(f"SELECT source FROM {ORDERED} WHERE page_num > 1 ORDER BY rowid")
        assert [row["source"] for row in later_pages] == ["/in/b.pdf", "/in/c.pdf"]
        # What a singular test sees under the table's name: its own columns, no `rowid`.
        assert list(data.all("SELECT * FROM vlm_ocr_outputs")[0]) == ["source", "page_num"]
    finally:
        data.close()


def test_a_closed_session_leaves_no_rows_behind() -> None:
    data = session(pages(4))
    data.all(COUNT)
    data.close()
    data.close()  # twice is once: the connection goes back to the pool one time
    reused = SqlSession(lambda _: pages(0), LIMITS)
    try:
        assert reused.connection is data.connection
        # The slot still holds its table's columns (so the prepared statements stay valid), no longer its rows.
        assert reused.connection.execute('SELECT count(*) FROM "__vlm_ocr_outputs_with_rowid"').fetchall() == [(0,)]
    finally:
        reused.close()


def test_a_text_of_two_statements_is_refused_before_any_of_it_runs(tmp_path: Path) -> None:
    # A connection outlives its evaluation: nothing a check's text holds may change it for the next group.
    data = session(pages(2))
    try:
        with pytest.raises(QueryError, match="one statement"):
            data.all("SELECT 1; CREATE TEMP VIEW later AS SELECT 2")
        assert data.all("SELECT count(*) AS n FROM duckdb_views() WHERE view_name = 'later'") == [{"n": 0}]
    finally:
        data.close()
    folder = tmp_path / "checks"
    (folder / "tests").mkdir(parents=True)
    sneaky = "true)) AS x FROM vlm_ocr_outputs; CREATE OR REPLACE TEMP VIEW metrics AS SELECT 42 AS n; SELECT ((true"
    (folder / "t.yml").write_text(
        f"assets:\n  vlm_ocr_outputs:\n    tests:\n      - expression_is_true: {{expression: {sneaky!r}}}\n"
    )
    with pytest.raises(ChecksConfigError, match=r"t.yml:4: .* is not one SQL expression"):
        load_dir(folder)
