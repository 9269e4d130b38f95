"""What a partition's materialization tells a reader: which inputs were rejected and why, the text, the viewer.

Tables and Markdown, not JSON blobs; capped, so a group of thousands of rejections stays a readable event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dagster import MetadataValue, TableColumn, TableRecord, TableSchema

from ocr_pipeline.records import Rejection
from ocr_pipeline.workspace.keys import view_key

# Rows a rejection or group table lists; the rest are counted, not shown.
MAX_TABLE_ROWS = 50
# Characters of the first document a preview shows.
MAX_PREVIEW_CHARS = 1500
# A detail longer than this is cut in a table cell (the ledger has it whole).
MAX_DETAIL_CHARS = 200

REJECTION_SCHEMA = TableSchema(
    columns=[
        TableColumn("input", "string", description="the input's URI"),
        TableColumn("reason", "string"),
        TableColumn("stage", "string", description="the stage that refused it"),
        TableColumn("detail", "string"),
    ]
)
GROUP_SCHEMA = TableSchema(
    columns=[
        TableColumn("group", "string", description="the partition key"),
        TableColumn("inputs", "int"),
        TableColumn("pages", "int", description="pages read, or estimated for S3 inputs not read yet"),
        TableColumn("rejected", "int", description="inputs refused by the scan"),
    ]
)


def _cut(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def rejections_metadata(rejections: Sequence[Rejection], cap: int = MAX_TABLE_ROWS) -> dict[str, Any]:
    """`rejected` (a count) and `rejected_inputs` (a table of input, reason, stage, detail; at most `cap` rows).

    Past the cap, `rejected_inputs_not_listed` says how many more the ledger holds.
    """
    records = [
        TableRecord(
            {"input": r.source, "reason": r.reason, "stage": r.stage, "detail": _cut(r.detail, MAX_DETAIL_CHARS)}
        )
        for r in rejections[:cap]
    ]
    metadata: dict[str, Any] = {
        "rejected": len(rejections),
        "rejected_inputs": MetadataValue.table(records=records, schema=REJECTION_SCHEMA),
    }
    if len(rejections) > cap:
        metadata["rejected_inputs_not_listed"] = len(rejections) - cap
    return metadata


def groups_metadata(groups: Sequence[dict[str, Any]], cap: int = MAX_TABLE_ROWS) -> dict[str, Any]:
    """`new_groups`: a table of the groups a scan formed (inputs, pages, rejections), at most `cap` rows."""
    records = [TableRecord({name: g[name] for name in ("group", "inputs", "pages", "rejected")}) for g in groups[:cap]]
    metadata: dict[str, Any] = {"new_groups": MetadataValue.table(records=records, schema=GROUP_SCHEMA)}
    if len(groups) > cap:
        metadata["new_groups_not_listed"] = len(groups) - cap
    return metadata


def text_preview(source: str, text: str, limit: int = MAX_PREVIEW_CHARS) -> MetadataValue:
    """A Markdown preview of one document: its source as a heading, then its first `limit` characters quoted."""
    whole = text.strip()
    shown = _cut(whole, limit)
    quoted = "\n".join(f"> {line}" if line.strip() else ">" for line in shown.splitlines()) or "> (no text)"
    # The cut keeps limit - 1 characters of the text (the last is the ellipsis).
    more = f"\n\n*{len(whole) - len(shown) + 1} more characters in the shard.*" if shown != whole else ""
    return MetadataValue.md(f"**{source}**\n\n{quoted}{more}")


def viewer_metadata(workspace_uri: str, group: str) -> dict[str, Any]:
    """Where the group's viewer page lands (`ocr-pipeline view` writes it), and the command that writes it."""
    return {
        "viewer_page": MetadataValue.path(f"{workspace_uri}/{view_key(group)}"),
        "viewer_command": MetadataValue.text(f"ocr-pipeline view {workspace_uri} {group}"),
    }
