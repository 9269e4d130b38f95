"""Blocking checks inside one op: Dagster gates the steps after a failed blocking check, but an asset computed in
the same op as the checked one is that op's to hold back (AssetCheckSpec's `blocking`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dagster import AssetExecutionContext, AssetKey

from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.registry import evaluate_all
from ocr_pipeline.checks.spec import TestSpec, load_file
from ocr_pipeline.workspace.storage import Workspace


def _declared_in(metadata: Any) -> str:
    """The `file:line` a compiled dbt_like_checks test records in its check spec ('' for any other check)."""
    raw = (metadata or {}).get("declared_in")
    return str(getattr(raw, "value", raw) or "")


def blocking_tests(context: AssetExecutionContext, asset: AssetKey) -> list[TestSpec]:
    """The run's blocking, error-severity data tests of `asset`, read back from the YAML they were declared in."""
    graph = context.job_def.asset_layer.asset_graph
    tests = []
    suites: dict[str, Any] = {}  # one parse per YAML file, however many of its tests block
    for key in sorted(graph.asset_check_keys, key=lambda k: k.name):
        spec = graph.get_check_spec(key)
        if key.asset_key != asset or not spec.blocking:
            continue
        where = _declared_in(spec.metadata)
        if not where:
            context.log.warning(f"blocking check {key.name} of {asset.to_user_string()} cannot gate within its op")
            continue
        path = where.rsplit(":", 1)[0]
        if path not in suites:
            suites[path] = load_file(Path(path))
        declared = suites[path].tests.get(asset.to_user_string(), [])
        tests += [t for t in declared if t.name == key.name and t.severity == "error"]
    return tests


def failed_blocking_checks(context: AssetExecutionContext, asset: AssetKey, workspace: Workspace) -> list[str]:
    """`name: summary` of each blocking test of `asset` that fails on this partition (empty: go on).

    The check op reports the same tests officially after this op; this only decides whether the op goes on to
    the assets it computes after `asset`.
    """
    tests = blocking_tests(context, asset)
    if not tests:
        return []
    data = PartitionData(workspace, context.partition_key)
    try:
        outcomes = list(evaluate_all(tests, data))
    finally:
        data.close()
    return [f"{test.name}: {outcome.summary}" for test, outcome in outcomes if not outcome.passed]
