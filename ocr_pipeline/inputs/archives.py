"""Safe extraction of PDF and image members from tar archives into the workspace."""

from __future__ import annotations

import hashlib
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from ocr_pipeline.inputs.refs import classify
from ocr_pipeline.workspace.safepaths import safe_relative_path
from ocr_pipeline.workspace.storage import Workspace

# Bounds on what one archive may make us write: members, bytes per member and in all.
MAX_ARCHIVE_MEMBERS = 100_000
MAX_MEMBER_BYTES = 512 * 1024 * 1024
MAX_ARCHIVE_BYTES = 16 * 1024 * 1024 * 1024


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


def extract_archive(archive_path: str, archive_source: str, workspace: Workspace) -> Iterator[ArchiveMember]:
    """Extract PDF/image members to `inputs/archives/<digest>/...`; traversal and odd members are refused."""
    digest = hashlib.sha256(archive_source.encode()).hexdigest()[:16]
    stem = PurePosixPath(archive_source.replace("\\", "/")).name
    for suffix in (".tar.gz", ".tgz", ".tar"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    total = 0
    try:
        tar = tarfile.open(archive_path, mode="r:*")  # noqa: SIM115 - closed by the `with tar` below
    except (tarfile.TarError, OSError, EOFError) as exc:
        yield ArchiveMember(archive_source, safe_relative_path(stem), "archive", None, "corrupt_archive", str(exc))
        return
    with tar:
        try:
            for count, member in enumerate(tar):
                source = f"{archive_source}::{member.name}"
                rel = safe_relative_path(f"{stem}/{member.name}")
                kind = classify(member.name)
                if member.isdir():
                    continue
                if count >= MAX_ARCHIVE_MEMBERS:
                    yield ArchiveMember(source, rel, kind, None, "archive_too_many_members")
                    break
                if _is_unsafe(member.name):
                    yield ArchiveMember(source, rel, kind, None, "unsafe_archive_member", "path leaves the archive")
                    continue
                if not member.isfile():
                    yield ArchiveMember(source, rel, kind, None, "unsupported_archive_member", "not a regular file")
                    continue
                if kind not in ("pdf", "image"):
                    yield ArchiveMember(source, rel, kind, None, "unsupported_type")
                    continue
                if member.size > MAX_MEMBER_BYTES or total + member.size > MAX_ARCHIVE_BYTES:
                    yield ArchiveMember(source, rel, kind, None, "too_large", f"{member.size} bytes")
                    continue
                handle = tar.extractfile(member)
                if handle is None:
                    yield ArchiveMember(source, rel, kind, None, "unsupported_archive_member")
                    continue
                data = handle.read(MAX_MEMBER_BYTES + 1)
                total += len(data)
                key = f"inputs/archives/{digest}/{rel}"
                workspace.write_bytes(key, data)
                yield ArchiveMember(source, rel, kind, key)
        except (tarfile.TarError, OSError, EOFError) as exc:
            yield ArchiveMember(archive_source, safe_relative_path(stem), "archive", None, "corrupt_archive", str(exc))
