"""Workspace keys of every stage's output: the one place the folder layout is spelled out."""

from __future__ import annotations

import hashlib

from ocr_pipeline.workspace.safepaths import safe_name, safe_relative_path

INVENTORY_PREFIX = "inventory/groups/"
DONE_PREFIX = "done/"
DOLMA_PREFIX = "dolma/"
# Most file systems refuse names over 255 bytes; Markdown mirrors keep their names well under that.
MAX_COMPONENT_BYTES = 200


def inventory_key(group: str) -> str:
    """Members of a work group, one row per input (Parquet)."""
    return f"{INVENTORY_PREFIX}{safe_name(group)}.parquet"


def filtered_key(group: str) -> str:
    """Keep/reject decision per input of the group (Parquet)."""
    return f"manifests/filtered/{safe_name(group)}.parquet"


def pages_key(group: str) -> str:
    """Rendered page images and text layers of the group (Parquet, one row per page)."""
    return f"pages/{safe_name(group)}.parquet"


def ocr_key(group: str) -> str:
    """Per-page OCR results of the group (Parquet)."""
    return f"manifests/ocr/{safe_name(group)}.parquet"


def stage_rejections_key(stage: str, group: str) -> str:
    """Inputs a stage refused, before they are merged into the ledger (JSONL)."""
    return f"manifests/rejections/{stage}/{safe_name(group)}.jsonl"


def dolma_key(group: str) -> str:
    """The group's Dolma shard (contract)."""
    return f"{DOLMA_PREFIX}{safe_name(group)}.jsonl.gz"


def rejected_key(group: str) -> str:
    """The group's rejection ledger (contract)."""
    return f"rejected/{safe_name(group)}.jsonl"


def partial_key(group: str) -> str:
    """Documents rejected for too many fallback pages, kept whole for inspection (Dolma JSONL gz)."""
    return f"rejected/partial/{safe_name(group)}.jsonl.gz"


def pipes_prefix(run_id: str) -> str:
    """Pipes message chunks of a run's Kubernetes pods on an S3 workspace (JSON, one folder per session)."""
    return f"pipes/{safe_name(run_id)}/"


def done_key(group: str) -> str:
    """The group's completion marker, written last: the only thing that says a group is done."""
    return f"{DONE_PREFIX}{safe_name(group)}.json"


def short_component(part: str) -> str:
    """A path component cut to MAX_COMPONENT_BYTES, a hash of the whole name keeping cut names distinct."""
    if len(part.encode("utf-8")) <= MAX_COMPONENT_BYTES:
        return part
    digest = hashlib.sha256(part.encode("utf-8")).hexdigest()[:16]
    return f"{part.encode('utf-8')[: MAX_COMPONENT_BYTES - 17].decode('utf-8', 'ignore')}-{digest}"


def markdown_key(rel_path: str) -> str:
    """The Markdown mirror of one input (contract): its path with the suffix replaced by .md."""
    rel = safe_relative_path(rel_path)
    stem, dot, suffix = rel.rpartition(".")
    base = stem if dot and "/" not in suffix else rel
    return "markdown/" + "/".join(short_component(p) for p in f"{base}.md".split("/"))


def memo_key(source_hash: str, settings_key: str, page_num: int) -> str:
    """One page's memoised result, keyed by content, page and the settings that shaped it."""
    h = safe_name(source_hash)
    return f"memo/{h[:2]}/{h}/{safe_name(settings_key)}/p{page_num:05d}.json"


def view_key(group: str) -> str:
    """The reviewer's HTML page of a group (`ocr-pipeline view`)."""
    return f"view/{safe_name(group)}.html"
