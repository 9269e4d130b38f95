"""The YAML grammar: what parses, and that every mistake fails loudly with its file and line."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from dagster import AssetCheckSeverity

from ocr_pipeline.checks.legacy_expressions import ExpressionError, translate
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.registry import implementations
from ocr_pipeline.checks.spec import TEST_TYPES, ChecksConfigError, load_dir, load_file, shipped_checks_dir
from ocr_pipeline.defs.checks import build_asset_checks, check_description, check_result
from ocr_pipeline.workspace.keys import filtered_key
from ocr_pipeline.workspace.manifest_schemas import FILTERED_SCHEMA
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import write_table

REPO = Path(__file__).resolve().parents[3]


def _write(tmp_path: Path, text: str, name: str = "t.yml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_issue_example_parses(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """
        assets:
          dolma_shards:
            columns:
              id: [unique, not_null]
              metadata.Source-File: [not_null]
            tests:
              - row_count: {min: 1}
              - expression: {sql_like: "fallback_pages / pages <= 0.004", severity: error, blocking: true}
          vlm_ocr_outputs:
            tests:
              - accepted_values: {column: rotation_correction, values: [0, 90, 180, 270]}
              - page_error_rate: {max: 0.01, blocking: true}
        """,
    )
    suite = load_file(path)
    names = {t.name: t for t in suite.tests["dolma_shards"]}
    assert set(names) == {"id_unique", "id_not_null", "metadata_Source_File_not_null", "row_count", "expression"}
    assert names["expression"].blocking and names["expression"].severity == "error" and names["expression"].line == 9
    [rotation, error_rate] = suite.tests["vlm_ocr_outputs"]
    assert rotation.params == {"column": "rotation_correction", "values": [0, 90, 180, 270]}
    assert error_rate.blocking and error_rate.params == {"max": 0.01}


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("assets:\n  dolma_shards:\n    tests:\n      - row_count: {min: 1\n", 5, "invalid YAML"),
        ("assets:\n  dolma_shards:\n    tests:\n      - uniqueness\n", 4, "unknown test 'uniqueness'"),
        ("assets:\n  dolma_shards:\n    tests:\n      - row_count: {minimum: 1}\n", 4, "unknown parameter"),
        ("assets:\n  dolma_shards:\n    tests:\n      - accepted_values: {values: [1]}\n", 4, "missing parameter"),
        ("assets:\n  nope:\n    tests: []\n", 2, "unknown or unpartitioned asset 'nope'"),
        ("assets:\n  dolma_shards:\n    tests:\n      - row_count: {min: 1, severity: warn, blocking: true}\n", 4,
         "cannot block"),
        ("assets:\n  dolma_shards:\n    tests:\n      - expression: {sql_like: \"__import__('os')\"}\n", 4,
         "unknown function"),
        ("assets:\n  dolma_shards:\n    tests:\n      - expression: {row: \"count() > 1\"}\n", 4, "per row"),
        ("assets:\n  dolma_shards:\n    tests:\n      - row_count: {min: 1}\n      - row_count: {max: 9}\n", 5,
         "already used"),
    ],
)  # fmt: skip
def test_mistakes_name_file_and_line(tmp_path: Path, body: str, line: int, message: str) -> None:
    path = _write(tmp_path, body)
    with pytest.raises(ChecksConfigError) as exc:
        load_file(path)
    assert str(exc.value).startswith(f"{path}:{line}: ") and message in str(exc.value)


def test_definitions_load_fails_on_a_bad_file(tmp_path: Path) -> None:
    _write(tmp_path, "assets:\n  dolma_shards:\n    columns:\n      id: [unique, nonsense]\n", "bad.yml")
    env = {**os.environ, "OCR_PIPELINE_CHECKS_DIR": str(tmp_path)}
    code = "from ocr_pipeline.defs.definitions import defs; defs()"  # what Dagster does to load the location
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True)
    assert proc.returncode != 0
    assert f"{tmp_path / 'bad.yml'}:4: unknown test 'nonsense'" in proc.stderr


def test_shipped_checks_compile_and_every_type_is_implemented() -> None:
    # `expression` is translated to expression_is_true when it loads; `singular` is a `.sql` file, not a YAML key.
    assert set(implementations()) == set(TEST_TYPES) - {"expression"} | {"singular"}
    suite = load_dir(shipped_checks_dir())
    types = {t.type for tests in suite.tests.values() for t in tests}
    assert types >= {"dolma_schema", "inventory_accounting", "pages_match_page_count", "page_error_rate"}
    blocking = {(t.asset, t.name) for tests in suite.tests.values() for t in tests if t.blocking}
    assert ("vlm_ocr_outputs", "page_error_rate") in blocking
    checks = build_asset_checks(shipped_checks_dir())
    assert sum(len(c.check_keys) for c in checks) == sum(len(v) for v in suite.tests.values())


def test_old_expressions_translate_to_sql_with_their_old_rules() -> None:
    # Python's rules are kept: a comparison with a null is false, two nulls are equal, 0/0 is 0.
    assert translate("a > 0", asset="vlm_ocr_outputs", per_row=True) == 'coalesce("a" > 0, false)'
    assert translate("a == None", asset="vlm_ocr_outputs", per_row=True) == '("a" IS NOT DISTINCT FROM NULL)'
    assert translate("col('metadata.x-y') in [1, 2]", asset="dolma_shards", per_row=True) == (
        'coalesce("metadata"."x-y" IN (1, 2), false)'
    )
    assert translate("fallback_pages / pages <= 0.004", asset="dolma_shards", per_row=False) == (
        'coalesce(safe_divide("fallback_pages", "pages") <= 0.004, false)'
    )
    assert translate("share(keep) > 0.5", asset="filtered_pdfs", per_row=False) == (
        'coalesce((SELECT safe_divide(count_if(coalesce("keep", false)), count(*)) FROM "filtered_pdfs") > 0.5, false)'
    )
    for bad in ["open('x')", "a.__class__", "(lambda: 1)()", "[x for x in a]", "a[0]", "count(sum(a))"]:
        with pytest.raises(ExpressionError):
            translate(bad, asset="dolma_shards", per_row=False)
    with pytest.raises(ExpressionError, match="unknown metric"):
        translate("nope > 1", asset="dolma_shards", per_row=False)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("len('x' * 10**11) > 0", "Pow is not allowed"),
        ("10**10**10 > 0", "Pow is not allowed"),
        ("pages > " + " + ".join(["1"] * 150), "levels deep"),
        ("pages in [" + ", ".join(["1"] * 600) + "]", "nodes"),
        ("pages > " + "1" * 2_100, "characters"),
        ("pages > " + "-" * 1_500 + "1", "deep"),
    ],
)
def test_oversized_expressions_are_refused_at_load_with_file_line(tmp_path: Path, source: str, message: str) -> None:
    path = _write(tmp_path, f'assets:\n  dolma_shards:\n    tests:\n      - expression: {{sql_like: "{source}"}}\n')
    with pytest.raises(ChecksConfigError) as exc:
        load_file(path)
    assert str(exc.value).startswith(f"{path}:4: ") and message in str(exc.value)


# The sidebar of an asset's checks cuts longer names.
MAX_CHECK_NAME = 30


def test_every_shipped_test_reads_well_in_the_ui() -> None:
    # The repository's folder, not the installed copy: this checkout's YAML is what ships next.
    suite = load_dir(REPO / "dbt_like_checks")
    tests = [t for tests in suite.tests.values() for t in tests]
    assert len(tests) >= 20
    assert [f"{t.asset}/{t.name}" for t in tests if len(t.description.split()) < 4] == []
    assert [t.name for t in tests if len(t.name) > MAX_CHECK_NAME] == []
    for test in tests:
        text = check_description(test)
        # Prose first, then how it gates and where, by file name: no absolute path in the sidebar.
        assert text.startswith(test.description + " [")
        assert ("[warning only;" in text) == (test.severity == "warn")
        assert text.endswith(f"{Path(test.file).name}:{test.line}]") and str(REPO) not in text
    warn = [t for t in tests if t.severity == "warn"]
    assert warn and all("warning only" in check_description(t) for t in warn)


def test_a_failing_warning_is_emitted_as_a_warning(tmp_path: Path) -> None:
    path = _write(tmp_path, "assets:\n  filtered_pdfs:\n    tests:\n      - row_count: {min: 1, severity: warn}\n")
    [test] = load_file(path).tests["filtered_pdfs"]
    ws = LocalWorkspace(str(tmp_path / "ws"))
    write_table(ws, filtered_key("g000001"), [], FILTERED_SCHEMA)
    result = check_result(test, PartitionData(ws, "g000001"))
    assert not result.passed and result.severity == AssetCheckSeverity.WARN
