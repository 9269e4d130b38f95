"""The inventory's seen-index: what every scan already recorded, in a few Parquet parts instead of one per group.

A scan must know every source and content hash seen before. Reading each group's manifest costs one request
per group (10,000 on S3 for a million PDFs); the index holds the same few columns in a handful of parts.
"""

from __future__ import annotations

import uuid
from typing import Any

import pyarrow as pa

from ocr_pipeline.workspace.keys import inventory_key
from ocr_pipeline.workspace.storage import Workspace
from ocr_pipeline.workspace.tables import read_rows, write_table

INDEX_PREFIX = "inventory/index/"
INDEX_COLUMNS = ["source", "sha256", "etag", "size", "status", "group"]
INDEX_SCHEMA = pa.schema(
    [
        ("source", pa.string()),
        ("sha256", pa.string()),
        ("etag", pa.string()),
        ("size", pa.int64()),
        ("status", pa.string()),
        ("group", pa.string()),
    ]
)
# More parts than this are merged into one on the next write, so reads stay a few requests.
MAX_PARTS = 16


def _parts(workspace: Workspace) -> list[str]:
    return [k for k in workspace.list(INDEX_PREFIX) if k.endswith(".parquet")]


def read_known_rows(workspace: Workspace, groups: list[str]) -> list[dict[str, Any]]:
    """Index rows of the given groups; groups the index does not cover are read from their own manifests.

    Rows of groups that do not exist (left by an older version that wrote the index part before the group
    files) are ignored, so a crash can neither hide an input nor record it twice.
    """
    indexed, unindexed = read_known_rows_split(workspace, groups)
    return indexed + unindexed


def read_known_rows_split(workspace: Workspace, groups: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(rows the index holds, rows read from manifests of groups it does not cover yet) for the given groups."""
    existing = set(groups)
    rows = [r for key in _parts(workspace) for r in read_rows(workspace, key, INDEX_COLUMNS) if r["group"] in existing]
    covered = {r["group"] for r in rows}
    # A scan that died after its group files but before its index part: its groups are read directly
    # (and the next scan adds them to the index).
    unindexed = [r for g in groups if g not in covered for r in read_rows(workspace, inventory_key(g), INDEX_COLUMNS)]
    return rows, unindexed


def append_index(workspace: Workspace, rows: list[dict[str, Any]]) -> None:
    """Record a scan's new rows as one part; compact the parts once there are too many."""
    if not rows:
        return
    write_table(workspace, f"{INDEX_PREFIX}part-{uuid.uuid4().hex}.parquet", _slim(rows), INDEX_SCHEMA)
    parts = _parts(workspace)
    if len(parts) > MAX_PARTS:
        merged = [r for key in parts for r in read_rows(workspace, key, INDEX_COLUMNS)]
        # The merged part is written before the old ones go: a reader never sees fewer rows than exist.
        write_table(workspace, f"{INDEX_PREFIX}part-{uuid.uuid4().hex}.parquet", merged, INDEX_SCHEMA)
        for key in parts:
            workspace.delete(key)


def _slim(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{name: row.get(name) for name in INDEX_COLUMNS} for row in rows]
