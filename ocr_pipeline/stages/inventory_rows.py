"""Inventory rows for one found input: the input itself, or one row per archive member (within the run's budget)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ocr_pipeline.inputs.archives import ExpansionBudget, extract_archive
from ocr_pipeline.inputs.fetch import InputMissing, open_input
from ocr_pipeline.inputs.refs import InputRef
from ocr_pipeline.workspace.storage import Workspace


def inventory_row(ref: InputRef | Any, location: str, reason: str | None, detail: str = "") -> dict[str, Any]:
    """A fresh inventory row: `ok` when `reason` is None, else rejected with it (detail in words, never bytes)."""
    return {
        "source": ref.source,
        "rel_path": ref.rel_path,
        "kind": ref.kind,
        "location": location,
        "size": max(getattr(ref, "size", -1), 0),
        "sha256": "",
        "etag": getattr(ref, "etag", ""),
        "page_count": 0,
        "probed": False,
        "status": "rejected" if reason else "ok",
        "reason": reason,
        "detail": detail,
    }


def input_rows(
    ref: InputRef,
    workspace: Workspace,
    input_client: Any,
    budget: ExpansionBudget,
    known: Callable[[str], bool],
) -> Iterator[dict[str, Any]]:
    """Rows for one found input; an archive yields a row per member not `known` yet (known ones are not written)."""
    if ref.reason:
        yield inventory_row(ref, ref.path, ref.reason, ref.detail)
        return
    if ref.kind != "archive":
        yield inventory_row(ref, ref.path, "unsupported_type" if ref.kind == "unsupported" else None)
        return
    try:
        with open_input(ref.path, workspace, input_client) as path:
            for member in extract_archive(path, ref.source, workspace, budget, known):
                yield inventory_row(member, f"ws:{member.key}" if member.key else "", member.reason, member.detail)
    except InputMissing as exc:
        yield inventory_row(ref, ref.path, "input_missing", str(exc))
