"""Which blocking checks stopped a group's run, read from its events: what `ocr-pipeline run` tells a person."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dagster import AssetCheckEvaluation, AssetCheckSeverity, DagsterEventType, EventLogEntry

# Failing pages (or rows) named per stopped check: the check's metadata in the UI holds its whole sample.
NAMED_ROWS = 5


@dataclass(frozen=True)
class GateStop:
    """A blocking check that failed: which, its one-line summary, the first failing rows, where it is declared."""

    check: str  # "<asset> <check name>"
    summary: str
    rows: tuple[str, ...]  # "a.pdf page 3 (degenerate)"
    declared_in: str  # "dbt_like_checks/vlm_ocr_outputs.yml:40" (the file's name and line), "" if unknown


def gate_stops(entries: Iterable[EventLogEntry]) -> list[GateStop]:
    """The failed blocking checks among a run's events, in the order they were evaluated."""
    stops = []
    for entry in entries:
        event = entry.dagster_event
        if event is None or event.event_type != DagsterEventType.ASSET_CHECK_EVALUATION:
            continue
        evaluation = event.event_specific_data
        if not isinstance(evaluation, AssetCheckEvaluation) or evaluation.passed or not evaluation.blocking:
            continue
        if evaluation.severity != AssetCheckSeverity.ERROR:
            continue
        metadata = {key: getattr(value, "value", value) for key, value in (evaluation.metadata or {}).items()}
        declared = str(metadata.get("declared_in") or "")
        stops.append(
            GateStop(
                check=f"{evaluation.asset_key.to_user_string()} {evaluation.check_name}",
                summary=str(metadata.get("summary") or evaluation.description or "failed"),
                rows=tuple(_row(row) for row in _sample(metadata)[:NAMED_ROWS]),
                declared_in=_short(declared),
            )
        )
    return stops


def _sample(metadata: dict[str, Any]) -> list[Any]:
    sample = metadata.get("sample")
    return sample if isinstance(sample, list) else []


def _row(row: Any) -> str:
    """One failing row in words: its input's file name and page, then what else the check recorded."""
    if not isinstance(row, dict):
        return str(row)
    source = str(row.get("source") or row.get("metadata.Source-File") or row.get("id") or "?")
    text = Path(source).name or source
    if row.get("page_num") is not None:
        text += f" page {row['page_num']}"
    shown = {k: v for k, v in row.items() if k not in _NAMING and v not in (None, "", [])}
    rest = [_value(v) if k in ("failure", "error") else f"{k} {_value(v)}" for k, v in shown.items()]
    return text + (f" ({'; '.join(rest)})" if rest else "")


_NAMING = ("source", "page_num", "metadata.Source-File", "id")


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    # An engine error names its last attempt ("attempt 8: degenerate answer: ..."): the cause is what follows.
    return re.sub(r"^attempt \d+: ", "", str(value))


def _short(declared: str) -> str:
    """`…/dbt_like_checks/x.yml:12` as the folder, file and line (the full path is in the check's metadata)."""
    path, _, line = declared.rpartition(":")
    if not path:
        return declared
    parts = Path(path).parts
    return f"{'/'.join(parts[-2:])}:{line}"
