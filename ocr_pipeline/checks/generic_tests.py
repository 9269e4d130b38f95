"""Evaluate each test type on one partition's data into an outcome: passed, counts, a few offending rows."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ocr_pipeline.checks.expressions import Evaluator, ExpressionError, dotted, parse_expression
from ocr_pipeline.checks.failure_gate import FailureGate
from ocr_pipeline.checks.loaders import KEY_COLUMNS, PAGE_PREDICATES, PartitionData
from ocr_pipeline.checks.paths import brief, get_path
from ocr_pipeline.checks.spec import TestSpec
from ocr_pipeline.records import UNREADABLE_PAGE_PREFIX

SAMPLE_ROWS = 5


@dataclass
class Outcome:
    """The result of one test on one partition; metadata values are plain JSON-able data."""

    passed: bool
    summary: str
    metadata: dict[str, Any] = field(default_factory=dict)


def sample_row(dataset: str, row: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A row's identifying columns plus what was wrong with it, cut short for display."""
    shown = {key: brief(get_path(row, key)) for key in KEY_COLUMNS.get(dataset, [])}
    return {**shown, **{k: brief(v) for k, v in extra.items()}}


def rows_outcome(spec: TestSpec, checked: int, failing: list[dict[str, Any]], what: str) -> Outcome:
    """Judge a row-level test against its thresholds (`max_failing`, `max_failing_rate`; default none may fail)."""
    share = len(failing) / checked if checked else 0.0
    max_rate = spec.params.get("max_failing_rate")
    max_count = spec.params.get("max_failing", 0 if max_rate is None else float("inf"))
    passed = len(failing) <= max_count and (max_rate is None or share <= max_rate)
    limits = [f"at most {max_count} rows"] if max_count != float("inf") else []
    limits += [f"at most {max_rate:.2%} of rows"] if max_rate is not None else []
    summary = f"{len(failing)} of {checked} rows {what} (allowed: {', '.join(limits)})"
    return Outcome(
        passed,
        summary,
        {
            "rows_checked": checked,
            "failing_rows": len(failing),
            "failing_share": round(share, 6),
            "allowed": ", ".join(limits),
            "sample": failing[:SAMPLE_ROWS],
        },
    )


def _unique(spec: TestSpec, data: PartitionData) -> Outcome:
    rows, column = data.rows(spec.asset), spec.params["column"]
    counts = Counter(repr(get_path(r, column)) for r in rows if get_path(r, column) is not None)
    failing = [
        sample_row(spec.asset, r, **{column: get_path(r, column)})
        for r in rows
        if get_path(r, column) is not None and counts[repr(get_path(r, column))] > 1
    ]
    outcome = rows_outcome(spec, len(rows), failing, f"share a value of {column} with another row")
    outcome.metadata["duplicated_values"] = sum(1 for n in counts.values() if n > 1)
    return outcome


def _not_null(spec: TestSpec, data: PartitionData) -> Outcome:
    rows, column = data.rows(spec.asset), spec.params["column"]
    failing = [sample_row(spec.asset, r) for r in rows if get_path(r, column) is None]
    return rows_outcome(spec, len(rows), failing, f"have no {column}")


def _accepted_values(spec: TestSpec, data: PartitionData) -> Outcome:
    rows, column, values = data.rows(spec.asset), spec.params["column"], spec.params["values"]
    # Nulls are not judged here (as in dbt): pair with not_null to forbid them.
    bad = [r for r in rows if get_path(r, column) is not None and get_path(r, column) not in values]
    failing = [sample_row(spec.asset, r, **{column: get_path(r, column)}) for r in bad]
    outcome = rows_outcome(spec, len(rows), failing, f"have a {column} outside {values}")
    outcome.metadata["unexpected_values"] = dict(Counter(str(get_path(r, column)) for r in bad).most_common(10))
    return outcome


def _split(ref: str) -> tuple[str, str]:
    dataset, _, path = ref.partition(".")
    return dataset, path


def _relationships(spec: TestSpec, data: PartitionData) -> Outcome:
    source_ref = spec.params.get("from") or f"{spec.asset}.{spec.params['column']}"
    targets = spec.params["to"] if isinstance(spec.params["to"], list) else [spec.params["to"]]
    known: set[str] = set()
    for ref in targets:
        dataset, path = _split(ref)
        known.update(repr(get_path(r, path)) for r in data.rows(dataset))
    dataset, path = _split(source_ref)
    rows = data.rows(dataset)
    failing = [
        sample_row(dataset, r, **{path: get_path(r, path)})
        for r in rows
        if get_path(r, path) is not None and repr(get_path(r, path)) not in known
    ]
    outcome = rows_outcome(spec, len(rows), failing, f"of {source_ref} are in none of {targets}")
    outcome.metadata["from"], outcome.metadata["to"] = source_ref, ", ".join(targets)
    return outcome


def _row_count(spec: TestSpec, data: PartitionData) -> Outcome:
    count = len(data.rows(spec.asset))
    low, high = spec.params.get("min"), spec.params.get("max")
    passed = (low is None or count >= low) and (high is None or count <= high)
    bounds = f"min {low if low is not None else '-'}, max {high if high is not None else '-'}"
    return Outcome(passed, f"{count} rows ({bounds})", {"row_count": count, "bounds": bounds})


def _expression(spec: TestSpec, data: PartitionData) -> Outcome:
    per_row = "row" in spec.params
    source = str(spec.params["row"] if per_row else spec.params["sql_like"])
    tree = parse_expression(source, per_row=per_row)
    rows, metrics = data.rows(spec.asset), data.metrics(spec.asset)
    evaluator = Evaluator(rows, metrics)
    if per_row:
        failing = [sample_row(spec.asset, r) for r in rows if not evaluator.row_value(tree, r)]
        outcome = rows_outcome(spec, len(rows), failing, f"fail `{source}`")
        outcome.metadata["expression"] = source
        return outcome
    value = evaluator.value(tree)
    if not isinstance(value, bool):
        raise ExpressionError(f"`{source}` gives {value!r}, not true/false: compare it with a bound")
    used = {p for node in ast.walk(tree) if (p := dotted(node)) in metrics}
    observed = {name: metrics[name]() for name in sorted(used)}
    summary = f"`{source}` is {str(value).lower()}" + (f" with {observed}" if observed else "")
    return Outcome(value, summary, {"expression": source, **{f"value.{k}": v for k, v in observed.items()}})


def _rate(spec: TestSpec, data: PartitionData, metric: str, what: str, engine_only: bool = False) -> Outcome:
    rows = data.rows(spec.asset)
    if engine_only:
        # Pages the PDF itself would not render are the input's failure: the shard stage rejects their
        # document on its own, and the group's other documents must still ship.
        rows = [r for r in rows if not str(r.get("error") or "").startswith(UNREADABLE_PAGE_PREFIX)]
    predicate = parse_expression(PAGE_PREDICATES[metric], per_row=True)
    evaluator = Evaluator(rows, {})
    hits = [r for r in rows if evaluator.row_value(predicate, r)]
    rate = len(hits) / len(rows) if rows else 0.0
    gate = gate_of(spec)
    summary = f"{len(hits)} of {len(rows)} pages {what} ({rate:.2%}; {gate.explain(len(rows))})"
    sample = [sample_row(spec.asset, r, error=r.get("error")) for r in hits[:SAMPLE_ROWS]]
    metadata = {"pages": len(rows), metric: len(hits), "rate": round(rate, 6), **gate_metadata(gate, len(rows))}
    return Outcome(gate.passes(len(hits), len(rows)), summary, {**metadata, "sample": sample})


def gate_of(spec: TestSpec) -> FailureGate:
    """The test's failure gate: its `max` share, judged by chance when it sets `false_alarm`."""
    return FailureGate(float(spec.params["max"]), spec.params.get("false_alarm"))


def gate_metadata(gate: FailureGate, pages: int) -> dict[str, Any]:
    """What a failure gate allowed, for the check's metadata."""
    extra = {} if gate.false_alarm is None else {"false_alarm": gate.false_alarm}
    return {"max": gate.honest_share, **extra, "allowed_pages": gate.allowed(pages)}


def _page_error_rate(spec: TestSpec, data: PartitionData) -> Outcome:
    # An error page is one the engine failed on and that has no text at all (not even from the text layer).
    return _rate(spec, data, "error_pages", "failed with no text", engine_only=True)


def _fallback_rate(spec: TestSpec, data: PartitionData) -> Outcome:
    return _rate(spec, data, "fallback_pages", "fell back to the text layer")


def _language_distribution(spec: TestSpec, data: PartitionData) -> Outcome:
    rows = data.rows(spec.asset)
    counts = Counter(str(r.get("primary_language") or "none") for r in rows)
    expected = [str(v) for v in spec.params["expected"]]
    share = sum(counts[lang] for lang in expected) / len(rows) if rows else 1.0
    passed = share >= spec.params["min_share"]
    summary = f"{share:.1%} of {len(rows)} pages in {expected} (at least {spec.params['min_share']:.0%} expected)"
    return Outcome(passed, summary, {"distribution": dict(counts.most_common()), "expected_share": round(share, 4)})


Implementation = Callable[[TestSpec, PartitionData], Outcome]

# Test type -> function, for the generic (dbt-style) tests; the registry adds the domain tests.
GENERIC_TESTS: dict[str, Implementation] = {
    "unique": _unique,
    "not_null": _not_null,
    "accepted_values": _accepted_values,
    "relationships": _relationships,
    "row_count": _row_count,
    "expression": _expression,
    "page_error_rate": _page_error_rate,
    "fallback_rate": _fallback_rate,
    "language_distribution": _language_distribution,
}
