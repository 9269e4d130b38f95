"""dbt_like_checks/ (its *.yml and tests/*.sql) compiled into Dagster asset checks: one check per test, run per
work-group partition."""

# No `from __future__ import annotations`: Dagster inspects the real type of the check's `context` hint.

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetChecksDefinition,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetKey,
    MetadataValue,
    PreviewWarning,
    multi_asset_check,
)

from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.outcome import Outcome
from ocr_pipeline.checks.registry import evaluate, evaluate_all
from ocr_pipeline.checks.rows_table import failing_count, rows_markdown
from ocr_pipeline.checks.spec import TestSpec, load_dir, shipped_checks_dir
from ocr_pipeline.defs.partitions import work_groups
from ocr_pipeline.defs.step_inputs import open_step
from ocr_pipeline.settings import DeploymentSettings


def checks_dir(deployment: DeploymentSettings) -> Path:
    """The folder of YAML tests this code location compiles: OCR_PIPELINE_CHECKS_DIR, else the shipped ones."""
    return Path(deployment.checks_dir or shipped_checks_dir())


def check_description(test: TestSpec) -> str:
    """The check's text in the UI: the YAML's prose `description` (else the test and its parameters), then how
    it gates and where it is declared, by file name (the full path is the `declared_in` metadata)."""
    params = ", ".join(f"{k}={v}" for k, v in test.params.items())
    text = test.description or f"{test.type}({params})"
    gate = "warning only" if test.severity == "warn" else "error, blocks what follows" if test.blocking else "error"
    return f"{text} [{gate}; {Path(test.file).name}:{test.line}]"


def _metadata_value(value: Any) -> Any:
    # Lists and dicts (samples, distributions) show as JSON; numbers and text as themselves.
    if isinstance(value, (list, dict)):
        return MetadataValue.json(value)
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return str(value)
    return value


def check_result(test: TestSpec, data: PartitionData, outcome: Outcome | None = None) -> AssetCheckResult:
    """One test's result on one partition (`outcome`, or the test run now); a `warn` test fails with WARN severity,
    so the UI shows a warning.

    Beside `sample` (the first failing rows as JSON, which `ocr-pipeline run` prints for a stopped check), the
    failing rows' count and those rows as a Markdown table, which the UI opens as a table (*Show Markdown*).
    """
    outcome = outcome if outcome is not None else evaluate(test, data)
    metadata = {"summary": outcome.summary, **{k: _metadata_value(v) for k, v in outcome.metadata.items()}}
    sample = outcome.metadata.get("sample")
    if isinstance(sample, list) and sample:
        table = rows_markdown(sample, failing_count(outcome.metadata))
        metadata["failing_rows_table"] = MetadataValue.md(table)
    return AssetCheckResult(
        check_name=test.name,
        asset_key=AssetKey(test.asset),
        passed=outcome.passed,
        severity=AssetCheckSeverity.WARN if test.severity == "warn" else AssetCheckSeverity.ERROR,
        description=outcome.summary,
        metadata=metadata,
    )


def _asset_checks(asset: str, tests: list[TestSpec]) -> AssetChecksDefinition:
    """One op per asset: it reads the partition's outputs once and reports every test as its own check."""
    with warnings.catch_warnings():
        # partitions_def on a check spec is a preview feature in Dagster 1.13; it is what makes checks per partition.
        warnings.simplefilter("ignore", PreviewWarning)
        specs = [
            AssetCheckSpec(
                test.name,
                asset=asset,
                description=check_description(test),
                blocking=test.blocking,
                partitions_def=work_groups,
                metadata={"declared_in": test.where, "test": test.type, "severity": test.severity},
            )
            for test in tests
        ]

    @multi_asset_check(
        name=f"{asset}_data_tests",
        specs=specs,
        # The same workspace resource as the assets: an s3:// workspace is read with its configured client.
        required_resource_keys={"pipeline_config", "workspace_s3"},
        description=f"dbt_like_checks tests of {asset}",
    )
    def _run(context: AssetCheckExecutionContext) -> Iterator[AssetCheckResult]:
        step = open_step(context.resources.pipeline_config, context.resources.workspace_s3)
        data = PartitionData(step.workspace, context.partition_key)
        try:
            for test, outcome in evaluate_all(tests, data):
                result = check_result(test, data, outcome)
                if not result.passed:
                    context.log.warning(f"{asset}/{test.name} failed on {context.partition_key}: {result.description}")
                yield result
        finally:
            data.close()

    return _run


def build_asset_checks(directory: Path | None = None) -> list[AssetChecksDefinition]:
    """Compile a folder of YAML tests (default: the shipped ones); ChecksConfigError (with file and line) for
    anything invalid. The code location passes `checks_dir(deployment)`."""
    suite = load_dir(directory or shipped_checks_dir())
    return [_asset_checks(asset, tests) for asset, tests in sorted(suite.tests.items()) if tests]
