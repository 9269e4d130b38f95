"""What a test found on one partition: passed or not, a one-line summary, counts and the first failing rows."""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ocr_pipeline.checks.paths import brief, get_path
from ocr_pipeline.checks.sql_tables import KEY_COLUMNS

if TYPE_CHECKING:
    from ocr_pipeline.checks.declared import TestSpec
    from ocr_pipeline.checks.loaders import PartitionData

# Failing rows a check's metadata shows (its count says how many there were).
SAMPLE_ROWS = 5


@dataclass
class Outcome:
    """The result of one test on one partition; metadata values are plain JSON-able data."""

    passed: bool
    summary: str
    metadata: dict[str, Any] = field(default_factory=dict)


Implementation = Callable[["TestSpec", "PartitionData"], Outcome]


def plain(value: Any) -> Any:
    """A value from DuckDB as JSON holds it (a 128-bit sum's Decimal as a number, a date as ISO text), cut short."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
        return str(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return brief([plain(v) for v in value])
    return brief(value)


def sample_row(dataset: str, row: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A row's identifying columns plus what was wrong with it, cut short for display."""
    shown = {key: brief(get_path(row, key)) for key in KEY_COLUMNS.get(dataset, [])}
    return {**shown, **{k: brief(v) for k, v in extra.items()}}


def rows_outcome(
    spec: TestSpec, checked: int, failing: list[dict[str, Any]], what: str, count: int | None = None
) -> Outcome:
    """Judge a row-level test against its thresholds (`max_failing`, `max_failing_rate`; default none may fail).

    `failing` holds the failing rows, or their first few when `count` says how many there were.
    """
    failed = len(failing) if count is None else count
    share = failed / checked if checked else 0.0
    max_rate = spec.params.get("max_failing_rate")
    max_count = spec.params.get("max_failing", 0 if max_rate is None else float("inf"))
    passed = failed <= max_count and (max_rate is None or share <= max_rate)
    limits = [f"at most {max_count} rows"] if max_count != float("inf") else []
    limits += [f"at most {max_rate:.2%} of rows"] if max_rate is not None else []
    summary = f"{failed} of {checked} rows {what} (allowed: {', '.join(limits)})"
    return Outcome(
        passed,
        summary,
        {
            "rows_checked": checked,
            "failing_rows": failed,
            "failing_share": round(share, 6),
            "allowed": ", ".join(limits),
            "sample": failing[:SAMPLE_ROWS],
        },
    )
