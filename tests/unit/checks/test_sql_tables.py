"""The tables the SQL reads: the same columns as the stages write, and failing rows shown as a Markdown table."""

from __future__ import annotations

from pathlib import Path

from dagster import MarkdownMetadataValue

from ocr_pipeline.checks.declared import TestSpec as Spec
from ocr_pipeline.checks.rows_table import rows_markdown
from ocr_pipeline.checks.sql_tables import SCHEMAS
from ocr_pipeline.defs.checks import check_result
from ocr_pipeline.stages.page_images import PAGES_SCHEMA
from ocr_pipeline.workspace.manifest_schemas import FILTERED_SCHEMA, INVENTORY_SCHEMA, OCR_SCHEMA
from tests.unit.checks.test_sql_checks import PAGES, Tables


def test_the_tables_have_the_columns_the_stages_write() -> None:
    # The manifests' schemas are the stages' own (workspace/manifest_schemas.py); the page images' is rebuilt without
    # the PNG. A stage that writes a new column adds it to the table list of docs/quality.md too.
    written = {
        "pdf_inventory": INVENTORY_SCHEMA,
        "filtered_pdfs": FILTERED_SCHEMA,
        "vlm_ocr_outputs": OCR_SCHEMA,
        "page_images": PAGES_SCHEMA.remove(PAGES_SCHEMA.get_field_index("png")),
    }
    for table, schema in written.items():
        assert SCHEMAS[table] == schema, f"checks/sql_tables.py's {table} differs from what its stage writes"


def test_failing_rows_show_as_a_markdown_table_beside_the_sample(tmp_path: Path) -> None:
    test = Spec("vlm_ocr_outputs", "not_null", "text_not_null", {"column": "text"}, file="t.yml", line=3)
    result = check_result(test, Tables(tmp_path, {"vlm_ocr_outputs": [*PAGES, *PAGES]}))
    assert not result.passed
    table = result.metadata["failing_rows_table"]
    assert isinstance(table, MarkdownMetadataValue)
    assert table.md_str == (
        "2 failing rows (all below):\n\n| source | page_num |\n|---|---|\n| /in/b.pdf | 1 |\n| /in/b.pdf | 1 |"
    )
    assert result.metadata["sample"].value == [{"source": "/in/b.pdf", "page_num": 1}] * 2  # what the CLI prints


def test_the_markdown_table_escapes_and_cuts_its_cells() -> None:
    rows = [{"source": "a|b.pdf", "text": "line one\nline two " + "x" * 200}, {"source": "c.pdf", "extra": [1, 2]}]
    text = rows_markdown(rows, 12)
    lines = text.splitlines()
    assert lines[0] == "12 failing rows (the first 2 below):"
    assert lines[2] == "| source | text | extra |"
    assert lines[4].startswith("| a\\|b.pdf | line one line two xxx") and lines[4].endswith("… |  |")
    assert lines[5] == "| c.pdf |  | [1, 2] |"
