"""The inventory stage: scan sources, record every input, and form new work groups (never reshuffled)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ocr_pipeline.inputs.archives import ExpansionBudget, remove_done_members
from ocr_pipeline.inputs.specs import resolve_inputs
from ocr_pipeline.pdf.input_facts import probe_location
from ocr_pipeline.pdf.sandbox.parent import PdfSandbox
from ocr_pipeline.settings import DEFAULT_MAX_ARCHIVE_BYTES, DEFAULT_PDF_MEMORY_MB
from ocr_pipeline.stages.inventory_index import append_index, read_known_rows, read_known_rows_split
from ocr_pipeline.stages.inventory_rows import input_rows
from ocr_pipeline.workspace.faults import fault_point
from ocr_pipeline.workspace.keys import INVENTORY_PREFIX, inventory_key
from ocr_pipeline.workspace.manifest_schemas import INVENTORY_SCHEMA
from ocr_pipeline.workspace.storage import Workspace
from ocr_pipeline.workspace.tables import read_rows, table_bytes

# S3 inputs are not downloaded by the scan; their page count for grouping is the mean of a few sampled ones.
PAGE_ESTIMATE_SAMPLES = 5


@dataclass
class InventoryResult:
    """What one scan found, which groups it formed, and where an interrupted listing resumes."""

    new_groups: list[str] = field(default_factory=list)
    # Per new group: its name, inputs, pages (read or estimated) and the inputs the scan refused.
    group_facts: list[dict[str, Any]] = field(default_factory=list)
    new_inputs: int = 0
    new_pages: int = 0  # read from the files (local inputs)
    new_pages_estimated: int = 0  # sampled estimates for S3 inputs not read yet: for grouping, never a count
    rejected: dict[str, int] = field(default_factory=dict)
    already_known: int = 0
    next_cursor: dict[str, str] = field(default_factory=dict)
    complete: bool = True


def list_groups(workspace: Workspace) -> list[str]:
    """Every work group the workspace holds, in creation order."""
    keys = workspace.list(INVENTORY_PREFIX)
    return [k[len(INVENTORY_PREFIX) : -len(".parquet")] for k in keys if k.endswith(".parquet")]


def read_group(workspace: Workspace, group: str) -> list[dict[str, Any]]:
    """The inventory rows of one group."""
    return read_rows(workspace, inventory_key(group))


def _known(rows: list[dict[str, Any]]) -> tuple[set[str], dict[str, str]]:
    sources: set[str] = set()
    contents: dict[str, str] = {}
    for row in rows:
        sources.add(row["source"])
        if row["status"] == "ok":
            for key in _content_keys(row):
                contents.setdefault(key, row["source"])
    return sources, contents


def _content_keys(row: dict[str, Any]) -> list[str]:
    """Identities of an input's bytes: its SHA-256 once read, its S3 ETag and size before."""
    keys = [f"sha256:{row['sha256']}"] if row.get("sha256") else []
    if row.get("etag"):
        keys.append(f"etag:{row['etag']}:{row.get('size', 0)}")
    return keys


def _probe(row: dict[str, Any], workspace: Workspace, input_client: Any, sandbox: PdfSandbox) -> None:
    """Read local inputs now (cheap); S3 inputs wait for their group's filter stage."""
    if row["status"] != "ok" or row["location"].startswith("s3://"):
        return
    facts = probe_location(row["kind"], row["location"], workspace, input_client, sandbox)
    row.update(size=facts.size, sha256=facts.sha256, page_count=facts.page_count, probed=True)
    if facts.reason:
        row.update(status="rejected", reason=facts.reason, detail=facts.detail)


def _dedupe(row: dict[str, Any], contents: dict[str, str]) -> None:
    """Mark the row a duplicate if its content was seen (in the workspace or earlier in this scan)."""
    if row["status"] != "ok":
        return
    keys = _content_keys(row)
    first = next((contents[k] for k in keys if k in contents), None)
    if first is not None:
        row.update(status="rejected", reason="duplicate", detail=f"same content as {first}")
        return
    for key in keys:
        contents[key] = row["source"]


def _estimate_pages(rows: list[dict[str, Any]], workspace: Workspace, input_client: Any, sandbox: PdfSandbox) -> None:
    """Give unread S3 inputs the mean page count of a few sampled ones (olmOCR sizes its groups the same way)."""
    pending = [r for r in rows if r["status"] == "ok" and not r["probed"]]
    if not pending:
        return
    counts = []
    step = max(len(pending) // PAGE_ESTIMATE_SAMPLES, 1)
    for row in pending[::step][:PAGE_ESTIMATE_SAMPLES]:
        facts = probe_location(row["kind"], row["location"], workspace, input_client, sandbox)
        if not facts.reason:
            counts.append(facts.page_count)
    estimate = max(round(sum(counts) / len(counts)), 1) if counts else 1
    for row in pending:
        row["page_count"] = estimate


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


@dataclass
class _Scan:
    """One scan's working state: what is known so far and the rows found."""

    workspace: Workspace
    input_client: Any
    sandbox: PdfSandbox
    known: set[str]
    result: InventoryResult
    progress: Callable[[int], None] | None
    budget: ExpansionBudget
    follow_external_links: bool = False
    rows: list[dict[str, Any]] = field(default_factory=list)

    def add_spec(self, spec: str, cursor: dict[str, str] | None, max_new_inputs: int | None) -> bool:
        """Add the new inputs one spec names; False when the budget ran out (the cursor says where)."""
        last_key = None
        refs = resolve_inputs(
            [spec], s3_client=self.input_client, start_after=cursor, follow_external_links=self.follow_external_links
        )
        for ref in refs:
            if max_new_inputs is not None and len(self.rows) >= max_new_inputs:
                self.result.complete = False
                if spec.startswith("s3://") and last_key:
                    self.result.next_cursor[spec] = last_key
                return False
            last_key = ref.path.split("/", 3)[-1] if ref.path.startswith("s3://") else None
            if ref.source in self.known:
                continue
            for row in input_rows(ref, self.workspace, self.input_client, self.budget, self.known.__contains__):
                if row["source"] in self.known:
                    continue
                self.known.add(row["source"])
                _probe(row, self.workspace, self.input_client, self.sandbox)
                self.rows.append(row)
                if self.progress is not None:
                    self.progress(1)
        return True


def scan_inputs(
    specs: list[str],
    workspace: Workspace,
    pages_per_group: int,
    progress: Callable[[int], None] | None = None,
    *,
    input_client: Any = None,
    cursor: dict[str, str] | None = None,
    max_new_inputs: int | None = None,
    max_archive_bytes: int = DEFAULT_MAX_ARCHIVE_BYTES,
    follow_external_links: bool = False,
    pdf_memory_mb: int = DEFAULT_PDF_MEMORY_MB,
) -> InventoryResult:
    """Record inputs not seen before and write them as new groups; known inputs keep their group.

    With `max_new_inputs`, the scan stops early and `next_cursor` says where each S3 listing resumes. Archives
    expand to `max_archive_bytes` in all; copies of members whose group is done are deleted first. The PDF reader
    is capped at `pdf_memory_mb` MiB.
    """
    # Reading inputs is slow and needs no lock; what was found is committed below, under the lock.
    known_rows = read_known_rows(workspace, list_groups(workspace))
    remove_done_members(workspace, known_rows)
    known, _ = _known(known_rows)
    result = InventoryResult(already_known=len(known))
    # One PDF reader child for the whole scan: a file that hangs or crashes pdfium is refused, not fatal.
    with PdfSandbox(memory_mb=pdf_memory_mb) as sandbox:
        budget = ExpansionBudget(max_archive_bytes)
        scan = _Scan(workspace, input_client, sandbox, known, result, progress, budget, follow_external_links)
        for spec in specs:
            if not scan.add_spec(spec, cursor, max_new_inputs):
                break
        rows = scan.rows
        _estimate_pages(rows, workspace, input_client, sandbox)
    with workspace.lock("inventory") as lease:
        rows = _commit_groups(workspace, rows, pages_per_group, result, lease)
    result.new_inputs = len(rows)
    result.new_pages = sum(int(r["page_count"] or 0) for r in rows if r["status"] == "ok" and r["probed"])
    result.new_pages_estimated = sum(int(r["page_count"] or 0) for r in rows if r["status"] == "ok" and not r["probed"])
    for row in rows:
        if row["status"] != "ok":
            result.rejected[row["reason"]] = result.rejected.get(row["reason"], 0) + 1
    return result


def _group_facts(name: str, members: list[dict[str, Any]]) -> dict[str, Any]:
    """A new group's name, inputs, pages and refused inputs, for the scan's report."""
    pages = sum(int(r["page_count"] or 0) for r in members if r["status"] == "ok")
    rejected = sum(r["status"] != "ok" for r in members)
    return {"group": name, "inputs": len(members), "pages": pages, "rejected": rejected}


def _commit_groups(
    workspace: Workspace, rows: list[dict[str, Any]], pages_per_group: int, result: InventoryResult, lease: Any
) -> list[dict[str, Any]]:
    """Under the inventory lock: drop what another scan recorded meanwhile, write new groups, then the index.

    Group files first, each created only if its name is free; the index part last (a group the index does
    not cover is read from its own file). A crash at any point loses no input: what has no group file yet
    is simply new to the next scan.
    """
    fault_point("inventory.locked")
    groups = list_groups(workspace)
    indexed, unindexed = read_known_rows_split(workspace, groups)
    known, contents = _known(indexed + unindexed)
    rows = [r for r in rows if r["source"] not in known]
    for row in rows:
        if row["reason"] == "duplicate":  # judged again against what is known now
            row.update(status="ok", reason=None, detail="")
        _dedupe(row, contents)
    today = datetime.now(timezone.utc).date().isoformat()
    index = _next_group_index(groups)
    for members in form_groups(rows, pages_per_group):
        if hasattr(lease, "check"):
            lease.check()  # an S3 lease taken over by another scan: stop before writing anything
        while True:
            name = group_name(index)
            index += 1
            for row in members:
                row.update(group=name, added=today)
            # Never overwrites: a name someone else holds is skipped, so a group's members never change.
            if workspace.create_exclusive(inventory_key(name), table_bytes(members, INVENTORY_SCHEMA)):
                break
        result.new_groups.append(name)
        result.group_facts.append(_group_facts(name, members))
        fault_point("inventory.group_file")
    append_index(workspace, rows + unindexed)
    fault_point("inventory.index")
    return rows
