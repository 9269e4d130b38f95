"""A check's failing rows as a Markdown table, for the Dagster UI (its metadata shows Markdown as a table)."""

from __future__ import annotations

import json
from typing import Any

# A cell longer than this is cut: the table must stay readable beside the check's other metadata.
MAX_CELL = 80


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(str(text).split())  # a newline would end the table's row
    if len(text) > MAX_CELL:
        text = text[: MAX_CELL - 1] + "…"
    return text.replace("\\", "\\\\").replace("|", "\\|")


def rows_markdown(rows: list[dict[str, Any]], count: int) -> str:
    """`count` failing rows, the first of which are `rows`, as a heading line and a Markdown table."""
    if not rows:
        return f"{count} failing rows."
    columns: list[str] = []
    for row in rows:
        columns += [key for key in row if key not in columns]
    shown = "all" if len(rows) >= count else f"the first {len(rows)}"
    lines = [
        f"{count} failing rows ({shown} below):",
        "",
        "| " + " | ".join(_cell(c) for c in columns) + " |",
        "|" + "---|" * len(columns),
    ]
    lines += ["| " + " | ".join(_cell(row.get(c, "")) for c in columns) + " |" for row in rows]
    return "\n".join(lines)


def failing_count(metadata: dict[str, Any]) -> int:
    """How many rows failed, as the outcome's metadata says (`failing_rows`), else the rows it shows."""
    count = metadata.get("failing_rows")
    sample = metadata.get("sample")
    shown = len(sample) if isinstance(sample, list) else 0
    return int(count) if isinstance(count, (int, float)) and not isinstance(count, bool) else shown
