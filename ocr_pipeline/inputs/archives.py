"""Archive members in the workspace: extracted safely within a per-run budget, deleted once their group is done.

Copies are deleted by a sweep at the start of every scan, not inside the commit: it is driven only by what is
on storage (the done markers and what is left under `inputs/archives/`), so a crash anywhere, before or during
a sweep, leaves at most copies the next scan removes, and never removes one a pending group still needs.
"""

from __future__ import annotations

import errno
import hashlib
import tarfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from ocr_pipeline.inputs.refs import classify
from ocr_pipeline.settings import DEFAULT_MAX_ARCHIVE_BYTES
from ocr_pipeline.workspace.commit import done_groups
from ocr_pipeline.workspace.safepaths import safe_relative_path
from ocr_pipeline.workspace.storage import Workspace

# Bounds on what one archive may make us write: members and bytes per member. Bytes in all are bounded per
# run by an ExpansionBudget shared by every archive a scan opens (the `max_archive_bytes` setting).
MAX_ARCHIVE_MEMBERS = 100_000
MAX_MEMBER_BYTES = 512 * 1024 * 1024
# Longest file name most file systems take (NAME_MAX), and longest S3 key: a member over either is refused
# on its own rather than failing the write and, with it, the rest of the archive.
MAX_NAME_BYTES = 255
MAX_KEY_BYTES = 1024
ARCHIVES_PREFIX = "inputs/archives/"


class ExpansionBudget:
    """Bytes the archives of one run may still expand to; shared by every archive the scan opens."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.spent = 0

    def allows(self, size: int) -> bool:
        """Whether `size` more bytes fit in what is left."""
        return self.spent + size <= self.limit


@dataclass(frozen=True)
class ArchiveMember:
    """One member of an archive: extracted to `key` in the workspace, or refused with `reason`."""

    source: str  # `archive.tar.gz::member/name.pdf`
    rel_path: str
    kind: str
    key: str | None
    reason: str | None = None
    detail: str = ""


def _is_unsafe(name: str) -> bool:
    parts = PurePosixPath(name.replace("\\", "/")).parts
    return name.startswith(("/", "\\")) or ".." in parts or (len(name) > 1 and name[1] == ":")


def _stem(archive_source: str) -> str:
    stem = PurePosixPath(archive_source.replace("\\", "/")).name
    for suffix in (".tar.gz", ".tgz", ".tar"):
        if stem.lower().endswith(suffix):
            return stem[: -len(suffix)]
    return stem


def member_key(archive_source: str, member_name: str) -> str:
    """Where a member of an archive is extracted to in the workspace (the same on every scan)."""
    digest = hashlib.sha256(archive_source.encode()).hexdigest()[:16]
    return f"{ARCHIVES_PREFIX}{digest}/{safe_relative_path(f'{_stem(archive_source)}/{member_name}')}"


def _name_too_long(key: str) -> bool:
    return len(key.encode()) > MAX_KEY_BYTES or any(len(p.encode()) > MAX_NAME_BYTES for p in key.split("/"))


def extract_archive(
    archive_path: str,
    archive_source: str,
    workspace: Workspace,
    budget: ExpansionBudget | None = None,
    skip: Callable[[str], bool] = lambda source: False,
) -> Iterator[ArchiveMember]:
    """Extract PDF/image members to `inputs/archives/<digest>/...`; traversal and odd members are refused.

    Members whose source `skip` says is known already are passed over unread (a rescan writes nothing).
    """
    budget = budget if budget is not None else ExpansionBudget(DEFAULT_MAX_ARCHIVE_BYTES)
    stem = _stem(archive_source)
    try:
        tar = tarfile.open(archive_path, mode="r:*")  # noqa: SIM115 - closed by the `with tar` below
    except (tarfile.TarError, OSError, EOFError) as exc:
        yield ArchiveMember(archive_source, safe_relative_path(stem), "archive", None, "corrupt_archive", str(exc))
        return
    with tar:
        try:
            for count, member in enumerate(tar):
                source = f"{archive_source}::{member.name}"
                if member.isdir() or skip(source):
                    continue
                rel = safe_relative_path(f"{stem}/{member.name}")
                kind = classify(member.name)
                refusal = _refusal(member, kind, count)
                if refusal is None and _name_too_long(member_key(archive_source, member.name)):
                    refusal = ("name_too_long", f"a path part over {MAX_NAME_BYTES} bytes")
                if refusal is None and not budget.allows(min(member.size, MAX_MEMBER_BYTES)):
                    # Stop reading: a small archive that expands to gigabytes costs no more than the budget.
                    # The members after this one are new to the next run's scan, which has a budget of its own.
                    detail = f"this run's archive expansion budget of {budget.limit} bytes is spent"
                    yield ArchiveMember(source, rel, kind, None, "archive_budget_exceeded", detail)
                    return
                if refusal is not None:
                    yield ArchiveMember(source, rel, kind, None, *refusal)
                    if refusal[0] == "archive_too_many_members":
                        return
                    continue
                found = ArchiveMember(source, rel, kind, member_key(archive_source, member.name))
                yield _extract(tar, member, found, workspace, budget)
        except (tarfile.TarError, OSError, EOFError) as exc:
            yield ArchiveMember(archive_source, safe_relative_path(stem), "archive", None, "corrupt_archive", str(exc))


def _refusal(member: tarfile.TarInfo, kind: str, count: int) -> tuple[str, str] | None:
    """(reason, detail) when the member is not extracted at all, judged from its header alone."""
    if count >= MAX_ARCHIVE_MEMBERS:
        return ("archive_too_many_members", f"more than {MAX_ARCHIVE_MEMBERS} members")
    if _is_unsafe(member.name):
        return ("unsafe_archive_member", "path leaves the archive")
    if not member.isfile():
        return ("unsupported_archive_member", "not a regular file")
    if kind not in ("pdf", "image"):
        return ("unsupported_type", "")
    if member.size > MAX_MEMBER_BYTES:
        return ("too_large", f"{member.size} bytes")
    return None


def _extract(
    tar: tarfile.TarFile, member: tarfile.TarInfo, found: ArchiveMember, workspace: Workspace, budget: ExpansionBudget
) -> ArchiveMember:
    """Write one member's bytes to its key; a write the file system refuses is this member's rejection only."""
    handle = tar.extractfile(member)
    if handle is None or found.key is None:
        return ArchiveMember(found.source, found.rel_path, found.kind, None, "unsupported_archive_member")
    data = handle.read(MAX_MEMBER_BYTES + 1)
    budget.spent += len(data)
    try:
        workspace.write_bytes(found.key, data)
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:  # a full disk fails the scan; a name this system refuses, one member
            raise
        detail = f"{type(exc).__name__}: {exc.strerror or exc}"
        return ArchiveMember(found.source, found.rel_path, found.kind, None, "extract_failed", detail)
    return found


def remove_done_members(workspace: Workspace, known_rows: list[dict[str, Any]]) -> int:
    """Delete the extracted copies of archive members whose group is done; returns how many were deleted.

    `known_rows` are the inventory index rows (source, group) the scan reads anyway; a member's key is derived
    from its source, so no group manifest is read. One listing when nothing is left over (the usual case).
    """
    left = set(workspace.list(ARCHIVES_PREFIX))
    if not left:
        return 0
    done = done_groups(workspace)
    deleted = 0
    for row in known_rows:
        archive, sep, member = str(row["source"]).partition("::")
        if not sep or row.get("group") not in done:
            continue
        key = member_key(archive, member)
        if key in left:
            workspace.delete(key)
            left.discard(key)
            deleted += 1
    return deleted
