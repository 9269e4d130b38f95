"""The commit protocol of a work group: clear the marker, publish every output, write `done/<g>.json` last.

Each output is one atomic object (rename on disk, one PUT or a completed multipart upload on S3), so a
reader never sees half an object; the marker says the whole set is there. A crash before the marker leaves
the group pending, whatever was already written; a rerun rewrites every output and then the marker.
Everything that decides "done" (the CLI run and `pending`, the sensor) asks `done_groups` / `is_done`: the
marker, plus the shard it vouches for (a shard deleted by hand afterwards makes the group pending again).
"""

from __future__ import annotations

import json
from typing import Any

from ocr_pipeline.workspace.faults import fault_point
from ocr_pipeline.workspace.keys import DOLMA_PREFIX, DONE_PREFIX, dolma_key, done_key
from ocr_pipeline.workspace.storage import Workspace


def is_done(workspace: Workspace, group: str) -> bool:
    """Whether the group's outputs are all published (its marker exists, and its shard still does)."""
    return workspace.exists(done_key(group)) and workspace.exists(dolma_key(group))


def _names(workspace: Workspace, prefix: str, suffix: str) -> set[str]:
    return {
        k[len(prefix) : -len(suffix)]
        for k in workspace.list(prefix)
        if k.endswith(suffix) and "/" not in k[len(prefix) :]
    }


def done_groups(workspace: Workspace) -> set[str]:
    """Every done group, from two listings (a request per 1,000 groups on S3 instead of one per group)."""
    return _names(workspace, DONE_PREFIX, ".json") & _names(workspace, DOLMA_PREFIX, ".jsonl.gz")


def pending_groups(workspace: Workspace, groups: list[str]) -> list[str]:
    """The groups, in order, that are not done."""
    done = done_groups(workspace)
    return [g for g in groups if g not in done]


def begin_commit(workspace: Workspace, group: str) -> None:
    """Take the group out of "done" before any of its outputs is rewritten."""
    workspace.delete(done_key(group))
    fault_point("commit.cleared")


def publish(workspace: Workspace, key: str, data: bytes, point: str) -> None:
    """Write one output of the group, then pass the named fault point (for crash tests)."""
    workspace.write_bytes(key, data)
    fault_point(point)


def finish_commit(workspace: Workspace, group: str, outputs: list[str], summary: dict[str, Any]) -> None:
    """Write the marker: the outputs it vouches for and the counts; the group is done from this write on."""
    fault_point("commit.before_marker")
    marker = {"group": group, "outputs": sorted(outputs), **summary}
    workspace.write_bytes(done_key(group), json.dumps(marker, sort_keys=True).encode("utf-8"))
    fault_point("commit.done")
