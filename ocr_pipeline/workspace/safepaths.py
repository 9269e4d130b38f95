"""Path-safe names: keys from untrusted input (S3 keys, archive members, group names) never escape the workspace."""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath

_UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9._\-]+")


def safe_relative_path(path: str) -> str:
    """A relative POSIX path with `..`, `.`, empty parts, drive letters and leading slashes removed.

    `../../etc/passwd` becomes `etc/passwd`; `C:\\x\\y.pdf` becomes `x/y.pdf`. Never returns "".
    """
    text = path.replace("\\", "/")
    if PureWindowsPath(path).drive:
        text = text[len(PureWindowsPath(path).drive) :]
    parts = [p for p in PurePosixPath(text).parts if p not in ("", ".", "..", "/")]
    parts = [_UNSAFE_CHARS.sub("_", p).strip("_") or "_" for p in parts]
    return "/".join(parts) or "_"


def safe_name(name: str) -> str:
    """A single path component made of letters, digits, `.`, `_` and `-` (group keys, file stems)."""
    cleaned = _UNSAFE_CHARS.sub("_", name).strip("._") or "_"
    return cleaned[:200]


def check_key(key: str) -> str:
    """Return `key` if it is a clean relative workspace key, else raise ValueError (defence in depth)."""
    if not key or key.startswith("/") or "\\" in key:
        raise ValueError(f"unsafe workspace key: {key!r}")
    if any(part in ("", ".", "..") for part in key.split("/")):
        raise ValueError(f"unsafe workspace key: {key!r}")
    return key
