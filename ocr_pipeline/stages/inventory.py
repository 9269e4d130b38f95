"""The inventory stage: scan sources, record every input, and form new work groups (never reshuffled)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import pyarrow as pa

from ocr_pipeline.archives import extract_archive
from ocr_pipeline.layout import INVENTORY_PREFIX, inventory_key
from ocr_pipeline.pdf_probe import probe_image, probe_pdf, sha256_file
from ocr_pipeline.settings import MAX_INPUT_BYTES
from ocr_pipeline.sources import InputRef, resolve_inputs
from ocr_pipeline.storage import Workspace
from ocr_pipeline.tables import read_rows, write_table

INVENTORY_SCHEMA = pa.schema(
    [
        ("source", pa.string()),
        ("rel_path", pa.string()),
        ("kind", pa.string()),
        ("location", pa.string()),  # a local path, or `ws:<key>` for a copy inside the workspace
        ("size", pa.int64()),
        ("sha256", pa.string()),
        ("page_count", pa.int32()),
        ("status", pa.string()),  # "ok" or "rejected"
        ("reason", pa.string()),
        ("detail", pa.string()),
        ("group", pa.string()),
        ("added", pa.string()),  # ISO date the input was first inventoried: Dolma's `added`
    ]
)


@dataclass
class InventoryResult:
    """What one scan found and which groups it formed."""

    new_groups: list[str] = field(default_factory=list)
    new_inputs: int = 0
    new_pages: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    already_known: int = 0


def list_groups(workspace: Workspace) -> list[str]:
    """Every work group the workspace holds, in creation order."""
    keys = workspace.list(INVENTORY_PREFIX)
    return [k[len(INVENTORY_PREFIX) : -len(".parquet")] for k in keys if k.endswith(".parquet")]


def read_group(workspace: Workspace, group: str) -> list[dict[str, Any]]:
    """The inventory rows of one group."""
    return read_rows(workspace, inventory_key(group))


def _known(workspace: Workspace, groups: list[str]) -> tuple[set[str], dict[str, str]]:
    sources: set[str] = set()
    hashes: dict[str, str] = {}
    for group in groups:
        for row in read_rows(workspace, inventory_key(group), columns=["source", "sha256", "status"]):
            sources.add(row["source"])
            if row["status"] == "ok" and row["sha256"]:
                hashes.setdefault(row["sha256"], row["source"])
    return sources, hashes


def _expand(refs: Iterable[InputRef], workspace: Workspace, known: set[str]) -> Iterator[dict[str, Any]]:
    """Rows for each input not seen before; archives are opened and their members listed."""
    for ref in refs:
        if ref.source in known:
            continue
        if ref.kind == "archive":
            for member in extract_archive(ref.path, ref.source, workspace):
                if member.source in known:
                    continue
                location = f"ws:{member.key}" if member.key else ""
                yield _row(
                    member.source, member.rel_path, member.kind, location, member.reason, member.detail
                )
        else:
            reason = "unsupported_type" if ref.kind == "unsupported" else None
            yield _row(ref.source, ref.rel_path, ref.kind, ref.path, reason, "")


def _row(source: str, rel: str, kind: str, location: str, reason: str | None, detail: str) -> dict[str, Any]:
    return {
        "source": source,
        "rel_path": rel,
        "kind": kind,
        "location": location,
        "size": 0,
        "sha256": "",
        "page_count": 0,
        "status": "rejected" if reason else "ok",
        "reason": reason,
        "detail": detail,
    }


def local_input_path(row: dict[str, Any], workspace: Workspace) -> str:
    """A path on this machine from which an inventoried input can be read."""
    location = row["location"]
    if location.startswith("ws:"):
        path = workspace.local_path(location[3:])
        if path is None:
            raise NotImplementedError("reading inputs from a remote workspace is not built yet")
        return str(path)
    return location


def _probe(row: dict[str, Any], workspace: Workspace, hashes: dict[str, str]) -> None:
    """Fill size, hash and page count, or the reason the input cannot be read."""
    if row["status"] != "ok":
        return
    path = local_input_path(row, workspace)
    try:
        row["size"] = os.path.getsize(path)
    except OSError as exc:
        row.update(status="rejected", reason="unreadable", detail=str(exc))
        return
    if row["size"] <= MAX_INPUT_BYTES and row["size"] > 0:
        row["sha256"] = sha256_file(path)
    probe = probe_image(path) if row["kind"] == "image" else probe_pdf(path)
    if not probe.ok:
        row.update(status="rejected", reason=probe.reason, detail=probe.detail)
        return
    row["page_count"] = probe.page_count
    first = hashes.get(row["sha256"])
    if first is not None:
        row.update(status="rejected", reason="duplicate", detail=f"same content as {first}")
        return
    hashes[row["sha256"]] = row["source"]


def form_groups(rows: list[dict[str, Any]], pages_per_group: int) -> list[list[dict[str, Any]]]:
    """Pack rows in order into groups of about `pages_per_group` pages (a rejected input weighs one)."""
    groups: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    weight = 0
    for row in rows:
        w = max(int(row["page_count"] or 0), 1)
        if current and weight + w > pages_per_group:
            groups.append(current)
            current, weight = [], 0
        current.append(row)
        weight += w
    if current:
        groups.append(current)
    return groups


def _next_group_index(groups: list[str]) -> int:
    """One past the highest group number in use, so a deleted group's name is never reused."""
    numbers = [int(g[1:]) for g in groups if g.startswith("g") and g[1:].isdigit()]
    return max(numbers, default=0) + 1


def group_name(index: int) -> str:
    """The partition key of the index-th group ever formed in a workspace."""
    return f"g{index:06d}"


def scan_inputs(
    specs: list[str],
    workspace: Workspace,
    pages_per_group: int,
    progress: Callable[[int], None] | None = None,
) -> InventoryResult:
    """Record inputs not seen before and write them as new groups; known inputs keep their group."""
    groups = list_groups(workspace)
    known, hashes = _known(workspace, groups)
    today = datetime.now(timezone.utc).date().isoformat()
    result = InventoryResult(already_known=len(known))
    rows = []
    for row in _expand(resolve_inputs(specs), workspace, known):
        if row["source"] in known:
            continue
        known.add(row["source"])
        _probe(row, workspace, hashes)
        row["added"] = today
        rows.append(row)
        if progress is not None:
            progress(1)
    next_index = _next_group_index(groups)
    for offset, members in enumerate(form_groups(rows, pages_per_group)):
        name = group_name(next_index + offset)
        for row in members:
            row["group"] = name
        write_table(workspace, inventory_key(name), members, INVENTORY_SCHEMA)
        result.new_groups.append(name)
    result.new_inputs = len(rows)
    result.new_pages = sum(int(r["page_count"] or 0) for r in rows if r["status"] == "ok")
    for row in rows:
        if row["status"] != "ok":
            result.rejected[row["reason"]] = result.rejected.get(row["reason"], 0) + 1
    return result
