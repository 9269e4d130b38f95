"""The rejection ledger: each stage records the inputs it refused; the shard stage merges them per group."""

from __future__ import annotations

from collections.abc import Iterable

from ocr_pipeline.records import STAGES, Rejection
from ocr_pipeline.workspace.keys import stage_rejections_key
from ocr_pipeline.workspace.storage import Workspace
from ocr_pipeline.workspace.tables import read_jsonl, write_jsonl


def write_stage_rejections(workspace: Workspace, stage: str, group: str, rejections: Iterable[Rejection]) -> int:
    """Replace the stage's rejections for the group (a rerun overwrites, never appends)."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}")
    return write_jsonl(workspace, stage_rejections_key(stage, group), (r.to_json() for r in rejections))


def read_stage_rejections(workspace: Workspace, stage: str, group: str) -> list[Rejection]:
    """One stage's rejections for the group ([] when the stage has not run)."""
    return [
        Rejection(line["source"], line["reason"], line["stage"], line.get("detail", ""))
        for line in read_jsonl(workspace, stage_rejections_key(stage, group))
    ]


def read_all_rejections(workspace: Workspace, group: str) -> list[Rejection]:
    """Every stage's rejections for the group, in stage order; one per source (the earliest stage wins)."""
    seen: set[str] = set()
    merged = []
    for stage in STAGES:
        for rejection in read_stage_rejections(workspace, stage, group):
            if rejection.source not in seen:
                seen.add(rejection.source)
                merged.append(rejection)
    return merged
