"""Resolve the user's input specs (folders, globs, .txt lists, images, .tar.gz archives) into input references."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ocr_pipeline.inputs.refs import LIST_SUFFIXES, InputRef, InputSpecError, classify
from ocr_pipeline.inputs.s3_listing import list_s3_inputs
from ocr_pipeline.workspace.safepaths import safe_relative_path

# A .txt list may name other lists; this bounds the nesting so a list naming itself ends.
MAX_LIST_DEPTH = 4


def _has_glob(spec: str) -> bool:
    return any(ch in spec for ch in "*?[")


def _glob_root(spec: str) -> Path:
    """The non-glob folder a glob starts from, so mirrored paths are relative to it."""
    parts = Path(spec).parts
    fixed = []
    for part in parts:
        if _has_glob(part):
            break
        fixed.append(part)
    return Path(*fixed) if fixed else Path(".")


def _refused(path: Path, reason: str, detail: str) -> InputRef:
    """An input refused before reading: named by the link itself, never by (or with bytes of) its target."""
    absolute = str(Path(os.path.abspath(path)))
    return InputRef(absolute, safe_relative_path(path.name), "unsupported", absolute, reason=reason, detail=detail)


def _ref(path: Path, root: Path | None, follow_external_links: bool = False) -> InputRef:
    try:
        resolved = path.resolve()
    except (RuntimeError, OSError):  # a symlink loop: this input is refused, the scan goes on
        return _refused(path, "symlink_loop", "the link cannot be followed")
    if root is not None:
        try:
            rel = resolved.relative_to(root.resolve()).as_posix()
        except ValueError:
            # A link out of the folder or glob root the user named (`x.pdf -> /etc/passwd`) reads files
            # they did not ask for; only an explicit setting follows it.
            if not follow_external_links:
                return _refused(path, "unsafe_link", "the link leaves its input folder")
            rel = path.name
    else:
        rel = path.name
    return InputRef(
        source=str(resolved), rel_path=safe_relative_path(rel), kind=classify(path.name), path=str(resolved)
    )


def _walk_folder(folder: Path, follow_external_links: bool) -> Iterator[InputRef]:
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            yield _ref(Path(dirpath) / name, folder, follow_external_links)


def resolve_inputs(
    specs: list[str],
    *,
    s3_client: Any = None,
    start_after: dict[str, str] | None = None,
    follow_external_links: bool = False,
    _depth: int = 0,
) -> Iterator[InputRef]:
    """Every input file the specs name, in a stable order; raises InputSpecError for a path that does not exist.

    `start_after` maps an S3 spec to the key its listing resumes after (a sensor's cursor). Symlinks found in
    a folder or glob that resolve outside it are `unsafe_link` refusals unless `follow_external_links`.
    """
    for spec in specs:
        spec = spec.strip()
        if not spec:
            continue
        if spec.startswith("s3://"):
            yield from list_s3_inputs(spec, s3_client, start_after=(start_after or {}).get(spec))
            continue
        if _has_glob(spec):
            matches = sorted(glob.glob(spec, recursive=True))
            root = _glob_root(spec)
            for match in matches:
                path = Path(match)
                if path.is_file():
                    yield _ref(path, root, follow_external_links)
            continue
        path = Path(spec).expanduser()
        if path.is_dir():
            yield from _walk_folder(path, follow_external_links)
        elif path.is_file() and path.name.lower().endswith(LIST_SUFFIXES):
            if _depth >= MAX_LIST_DEPTH:
                raise InputSpecError(f"input lists nested deeper than {MAX_LIST_DEPTH}: {spec}")
            entries = _read_list(path)
            yield from resolve_inputs(
                entries, s3_client=s3_client, follow_external_links=follow_external_links, _depth=_depth + 1
            )
        elif path.is_file():
            yield _ref(path, None)
        else:
            raise InputSpecError(f"no such file or folder: {spec}")


def _read_list(path: Path) -> list[str]:
    """Entries of a .txt list: one path per line, blank lines and `#` comments ignored, relative to the list."""
    entries = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if not line.startswith("s3://") and not os.path.isabs(line):
            line = str(path.parent / line)
        entries.append(line)
    return entries


def check_specs(specs: list[str], s3_client: Any = None) -> None:
    """Raise InputSpecError naming the first glob or S3 key that matches nothing (stops at each first match)."""
    for spec in specs:
        found = next(resolve_inputs([spec], s3_client=s3_client), None)
        if found is None and (_has_glob(spec) or (spec.startswith("s3://") and not spec.endswith("/"))):
            raise InputSpecError(f"no file matches {spec!r}")
