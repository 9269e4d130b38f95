"""What a sensor tick may do: list the inputs the inventory has not recorded yet, without reading any of them.

Reading inputs (hashes, page counts, archive members) and forming groups stays the `pdf_inventory` run's work
(`stages/pdf_inventory.py: scan_inputs`); this module only compares a bounded source listing with the sources
the inventory already holds, so a tick costs listings and one read of the inventory index.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ocr_pipeline.inputs.refs import InputRef
from ocr_pipeline.inputs.specs import resolve_inputs
from ocr_pipeline.stages.inventory_index import read_known_rows
from ocr_pipeline.stages.pdf_inventory import list_groups
from ocr_pipeline.workspace.storage import Workspace


@dataclass
class NewInputs:
    """New inputs one bounded listing found, the specs they came from, and where the next listing resumes."""

    refs: list[InputRef] = field(default_factory=list)
    specs: list[str] = field(default_factory=list)  # in listing order, only those with a new input
    next_cursor: dict[str, str] = field(default_factory=dict)  # S3 spec -> the last key listed
    complete: bool = True  # False when the bound stopped the listing


def known_sources(workspace: Workspace, groups: list[str] | None = None) -> set[str]:
    """Every source the inventory recorded: its index, plus the groups the index does not cover yet.

    `groups` is `list_groups(workspace)` when the caller has it already (one listing fewer).
    """
    groups = list_groups(workspace) if groups is None else groups
    return {str(row["source"]) for row in read_known_rows(workspace, groups)}


def _archive_sources(known: set[str]) -> set[str]:
    """Archives the inventory opened: it records their members (`a.tar.gz::m.pdf`), never the archive itself."""
    return {source.partition("::")[0] for source in known if "::" in source}


def _s3_key(ref: InputRef) -> str | None:
    return ref.path.split("/", 3)[-1] if ref.path.startswith("s3://") else None


def list_new_inputs(
    specs: list[str],
    known: set[str],
    *,
    input_client: Any,
    cursor: dict[str, str] | None = None,
    max_new_inputs: int,
    follow_external_links: bool = False,
) -> NewInputs:
    """The inputs the specs name that `known` lacks, at most `max_new_inputs`; S3 listings resume at `cursor`.

    The cursor works as `scan_inputs`' does: it holds, per S3 spec, the last key listed before the bound was
    reached, so a `pdf_inventory` run given the same start (and bound) scans the same new inputs.
    """
    archives = _archive_sources(known)
    found = NewInputs()
    for spec in specs:
        last_key = None
        refs = resolve_inputs(
            [spec], s3_client=input_client, start_after=cursor, follow_external_links=follow_external_links
        )
        for ref in refs:
            if len(found.refs) >= max_new_inputs:
                found.complete = False
                if spec.startswith("s3://") and last_key:
                    found.next_cursor[spec] = last_key
                return found
            last_key = _s3_key(ref)
            if ref.source in known or ref.source in archives:
                continue
            found.refs.append(ref)
            if spec not in found.specs:
                found.specs.append(spec)
    return found
