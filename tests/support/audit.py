"""The workspace invariant the reliability tests check: every input in one group, and in one of dolma/ or rejected/."""

from __future__ import annotations

from collections import Counter

from ocr_pipeline.stages.pdf_inventory import list_groups, read_group
from ocr_pipeline.workspace.commit import done_groups
from ocr_pipeline.workspace.keys import dolma_key, rejected_key
from ocr_pipeline.workspace.storage import Workspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl


def audit(workspace: Workspace) -> dict[str, list[str]]:
    """Check every group that is done; returns {"pending": [...], "documents": [...], "rejected": [...]}."""
    members: Counter[str] = Counter()
    out: dict[str, list[str]] = {"pending": [], "documents": [], "rejected": []}
    done = done_groups(workspace)
    for group in list_groups(workspace):
        sources = [r["source"] for r in read_group(workspace, group)]
        members.update(sources)
        if group not in done:
            out["pending"].append(group)
            continue
        docs = [d["metadata"]["Source-File"] for d in read_gzip_jsonl(workspace.read_bytes(dolma_key(group)))]
        ledger = [line["source"] for line in read_jsonl(workspace, rejected_key(group))]
        # A done group has every output: each member is in exactly one of the shard and the ledger.
        assert sorted(docs + ledger) == sorted(sources), (group, docs, ledger, sources)
        out["documents"] += docs
        out["rejected"] += ledger
    twice = [s for s, n in members.items() if n > 1]
    assert not twice, f"inputs in more than one group: {twice}"
    return out
