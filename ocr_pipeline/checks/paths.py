"""Dotted column paths (`metadata.Source-File`) into rows of nested dicts."""

from __future__ import annotations

from typing import Any


def get_path(row: dict[str, Any], path: str) -> Any:
    """The value at a dotted path; a key that itself contains dots is tried first; missing is None."""
    if path in row:
        return row[path]
    value: Any = row
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def brief(value: Any, limit: int = 120) -> Any:
    """A value cut short for check metadata (long texts and lists would swamp the UI)."""
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + "…"
    if isinstance(value, (list, tuple)) and len(value) > 8:
        return [brief(v, limit) for v in value[:8]] + ["…"]
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return value
