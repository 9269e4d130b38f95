"""Every test type passes on a real pipeline run and fails, with counts and offending rows, on a broken one."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from ocr_pipeline.checks.generic_tests import Outcome
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.registry import evaluate
from ocr_pipeline.checks.spec import ChecksConfigError, load_file, shipped_checks_dir
from ocr_pipeline.local_run import run_local
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.page_images import PAGES_SCHEMA
from ocr_pipeline.workspace.keys import dolma_key, inventory_key, ocr_key, pages_key, rejected_key
from ocr_pipeline.workspace.manifest_schemas import INVENTORY_SCHEMA, OCR_SCHEMA
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import gzip_jsonl, read_gzip_jsonl, read_rows, write_jsonl, write_table
from tests.support.builders import pdfgen

GROUP = "g000001"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real run: two born-digital PDFs (three pages) and an empty file that ends in rejected/."""
    root = tmp_path_factory.mktemp("checks")
    pdfgen.write(root / "in" / "a.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:3], pdfgen.SENTENCES[3:6]]))
    pdfgen.write(root / "in" / "b.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[6:8]]))
    pdfgen.write(root / "in" / "zero.pdf", b"")
    summary = run_local(PipelineSettings(workspace=str(root / "ws"), pdfs=[str(root / "in")]), show_progress=False)
    assert summary.ok and summary.documents == 2
    return root / "ws"


@pytest.fixture
def broken(workspace: Path, tmp_path: Path) -> LocalWorkspace:
    """A copy of the run's workspace that a test may damage."""
    shutil.copytree(workspace, tmp_path / "ws")
    return LocalWorkspace(tmp_path / "ws")


def run(tmp_path: Path, ws: Path | LocalWorkspace, asset: str, tests: str) -> dict[str, Outcome]:
    """Evaluate YAML tests of one asset on the workspace's partition; outcomes by test name."""
    path = tmp_path / "t.yml"
    body = textwrap.indent(textwrap.dedent(tests), "      ")
    path.write_text(f"assets:\n  {asset}:\n    tests:\n{body}")
    data = PartitionData(ws if isinstance(ws, LocalWorkspace) else LocalWorkspace(ws), GROUP)
    return {t.name: evaluate(t, data) for t in load_file(path).tests[asset]}


def test_shipped_checks_pass_on_a_good_run(workspace: Path) -> None:
    data = PartitionData(LocalWorkspace(workspace), GROUP)
    from ocr_pipeline.checks.spec import load_dir

    for tests in load_dir(shipped_checks_dir()).tests.values():
        for test in tests:
            outcome = evaluate(test, data)
            assert outcome.passed, (test.asset, test.name, outcome.summary)


def test_column_tests(workspace: Path, tmp_path: Path) -> None:
    got = run(tmp_path, workspace, "vlm_ocr_outputs", """
        - unique: {column: sha256, name: pass_unique_by_page, max_failing: 2}
        - unique: {column: source}
        - not_null: {column: text}
        - not_null: {column: error}
        - accepted_values: {column: rotation_correction, values: [0, 90, 180, 270]}
        - accepted_values: {column: rotation_correction, values: [90], name: only_ninety}
    """)  # fmt: skip
    assert got["pass_unique_by_page"].passed and not got["source_unique"].passed
    assert (
        got["source_unique"].metadata["failing_rows"] == 2 and got["source_unique"].metadata["duplicated_values"] == 1
    )
    assert got["source_unique"].metadata["sample"][0]["page_num"] in (1, 2)
    assert got["text_not_null"].passed and not got["error_not_null"].passed
    assert got["error_not_null"].metadata["failing_rows"] == 3
    assert got["rotation_correction_accepted_values"].passed and not got["only_ninety"].passed
    assert got["only_ninety"].metadata["unexpected_values"] == {"0": 3}


def test_relationships(workspace: Path, tmp_path: Path) -> None:
    got = run(tmp_path, workspace, "dolma_shards", """
        - relationships:
            {name: ok, from: pdf_inventory.source, to: [dolma_shards.metadata.Source-File, rejected.source]}
        - relationships: {name: bad, from: pdf_inventory.source, to: dolma_shards.metadata.Source-File}
    """)  # fmt: skip
    assert got["ok"].passed and got["ok"].metadata["rows_checked"] == 3
    assert not got["bad"].passed
    [row] = got["bad"].metadata["sample"]
    assert row["source"].endswith("zero.pdf") and row["reason"] == "empty_file"


def test_row_count_and_thresholds(workspace: Path, tmp_path: Path) -> None:
    got = run(tmp_path, workspace, "dolma_shards", """
        - row_count: {min: 1, max: 2}
        - row_count: {max: 1, name: at_most_one}
        - expression: {name: lenient, row: "len(text) > 300", max_failing: 1}
        - expression: {name: strict, row: "len(text) > 300", max_failing_rate: 0.1}
    """)  # fmt: skip
    assert got["row_count"].passed and not got["at_most_one"].passed
    assert got["at_most_one"].metadata["row_count"] == 2
    assert got["lenient"].passed and got["lenient"].metadata["failing_rows"] == 1
    assert not got["strict"].passed and got["strict"].metadata["failing_share"] == 0.5


def test_expressions(workspace: Path, tmp_path: Path) -> None:
    got = run(tmp_path, workspace, "dolma_shards", """
        - expression: {name: fallback_share, sql_like: "fallback_pages / pages <= 0.004"}
        - expression: {name: too_few_pages, sql_like: "pages >= 4"}
        - expression: {name: engine, row: "metadata.engine == 'cpu' and col('metadata.pdf-total-pages') >= 1"}
        - expression: {name: short, row: "len(text) < 200"}
        - expression_is_true:
            {name: sql_engine, expression: 'metadata.engine = ''cpu'' AND metadata."pdf-total-pages" >= 1'}
        - expression_is_true: {name: sql_short, expression: "length(text) < 200"}
        - expression_is_true: {name: sql_pages, table: metrics, expression: "pages >= 4"}
    """)  # fmt: skip
    assert got["fallback_share"].passed and got["engine"].passed and got["sql_engine"].passed
    assert not got["too_few_pages"].passed and got["too_few_pages"].metadata["value.pages"] == 3
    assert not got["sql_pages"].passed and got["sql_pages"].metadata["value.pages"] == 3
    for name in ("short", "sql_short"):
        assert not got[name].passed and got[name].metadata["sample"][0]["metadata.Source-File"].endswith("a.pdf")
    # A value that is not true/false fails when the file loads, with its line, not when the check runs.
    with pytest.raises(ChecksConfigError, match=r"t.yml:5: expression_is_true: `\"pages\"` is BIGINT, not a boolean"):
        run(tmp_path, workspace, "dolma_shards", """
            - expression: {name: not_boolean, sql_like: "pages"}
        """)  # fmt: skip


def test_rates_and_languages(broken: LocalWorkspace, tmp_path: Path) -> None:
    tests = """
        - page_error_rate: {max: 0.01}
        - fallback_rate: {max: 0.05}
        - language_distribution: {expected: [en], min_share: 0.5}
        - language_distribution: {expected: [fr], min_share: 0.5, name: french}
    """
    got = run(tmp_path, broken, "vlm_ocr_outputs", tests)
    assert got["page_error_rate"].passed and got["fallback_rate"].passed and got["language_distribution"].passed
    assert not got["french"].passed and got["french"].metadata["distribution"] == {"en": 3}
    rows = read_rows(broken, ocr_key(GROUP))
    # One page the engine failed on with no text left, one that fell back to its text layer.
    rows[0].update(text="", error="attempt 3: garbage reply", is_fallback=True)
    rows[1].update(error="attempt 3: garbage reply", is_fallback=True)
    write_table(broken, ocr_key(GROUP), rows, OCR_SCHEMA)
    got = run(tmp_path, broken, "vlm_ocr_outputs", tests)
    assert not got["page_error_rate"].passed and got["page_error_rate"].metadata["error_pages"] == 1
    assert got["page_error_rate"].metadata["sample"][0]["error"] == "attempt 3: garbage reply"
    assert not got["fallback_rate"].passed and got["fallback_rate"].metadata["fallback_pages"] == 2


def test_dolma_schema(broken: LocalWorkspace, tmp_path: Path) -> None:
    assert run(tmp_path, broken, "dolma_shards", "- dolma_schema")["dolma_schema"].passed
    docs = read_gzip_jsonl(broken.read_bytes(dolma_key(GROUP)))
    docs[0]["attributes"]["pdf_page_numbers"][0][0] = 1  # no longer starts at 0
    docs[0]["attributes"]["pdf_page_numbers"][-1][2] = 0  # a 0-based page
    del docs[1]["metadata"]["total-fallback-pages"]
    broken.write_bytes(dolma_key(GROUP), gzip_jsonl(docs))
    outcome = run(tmp_path, broken, "dolma_shards", "- dolma_schema")["dolma_schema"]
    assert not outcome.passed and outcome.metadata["failing_rows"] == 2
    problems = {p for row in outcome.metadata["sample"] for p in row["problems"]}
    assert "first span starts at 1, not 0" in problems and "page numbers must be 1-based, found 0" in problems
    assert "metadata.total-fallback-pages is not a int" in problems


def test_inventory_accounting(broken: LocalWorkspace, tmp_path: Path) -> None:
    outcome = run(tmp_path, broken, "dolma_shards", "- inventory_accounting")["inventory_accounting"]
    assert outcome.passed and (outcome.metadata["inputs"], outcome.metadata["documents"]) == (3, 2)
    write_jsonl(broken, rejected_key(GROUP), [])  # the empty file's rejection is lost
    outcome = run(tmp_path, broken, "dolma_shards", "- inventory_accounting")["inventory_accounting"]
    assert not outcome.passed and outcome.metadata["rejections"] == 0
    [row] = outcome.metadata["sample"]
    assert row["source"].endswith("zero.pdf") and row["problem"] == "neither a document nor a rejection"


def test_pages_match_page_count(broken: LocalWorkspace, tmp_path: Path) -> None:
    assert run(tmp_path, broken, "page_images", "- pages_match_page_count")["pages_match_page_count"].passed
    rows = [r for r in read_rows(broken, pages_key(GROUP)) if r["page_num"] != 2]
    write_table(broken, pages_key(GROUP), rows, PAGES_SCHEMA)
    outcome = run(tmp_path, broken, "page_images", "- pages_match_page_count")["pages_match_page_count"]
    assert not outcome.passed and outcome.metadata["rendered_pages"] == 2 and outcome.metadata["counted_pages"] == 3
    assert outcome.metadata["sample"][0]["problem"] == "1 pages rendered, page_count 2"


def test_pages_match_page_count_reads_the_filter_stage_count_not_the_estimate(
    broken: LocalWorkspace, tmp_path: Path
) -> None:
    # S3 inputs carry the scan's sampled estimate in the inventory; only the filter stage's count is a fact.
    rows = [{**r, "page_count": 7, "probed": False} for r in read_rows(broken, inventory_key(GROUP))]
    write_table(broken, inventory_key(GROUP), rows, INVENTORY_SCHEMA)
    outcome = run(tmp_path, broken, "page_images", "- pages_match_page_count")["pages_match_page_count"]
    assert outcome.passed and outcome.metadata["counted_pages"] == outcome.metadata["rendered_pages"] == 3


def test_missing_output_fails_with_its_key(broken: LocalWorkspace, tmp_path: Path) -> None:
    broken.delete(dolma_key(GROUP))
    outcome = run(tmp_path, broken, "dolma_shards", "- row_count: {min: 1}")["row_count"]
    assert not outcome.passed and "dolma/g000001.jsonl.gz does not exist" in outcome.summary
