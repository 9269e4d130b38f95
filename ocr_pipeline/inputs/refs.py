"""What a scan finds before reading anything: input references, their kind by name, and spec errors."""

from __future__ import annotations

from dataclasses import dataclass

PDF_SUFFIXES = (".pdf",)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar")
LIST_SUFFIXES = (".txt",)


class InputSpecError(ValueError):
    """An input spec the user gave cannot be resolved (missing path, empty glob)."""


@dataclass(frozen=True)
class InputRef:
    """One input file found by a scan, before it is read."""

    source: str  # what the user would recognise: a path, or `archive.tar.gz::member`
    rel_path: str  # the path mirrored under markdown/ (path-safe)
    kind: str  # "pdf", "image", "archive" or "unsupported"
    path: str  # where to read it from: a local path or an s3:// URI (archives: the archive itself)
    size: int = -1  # known from an S3 listing; -1 when not yet looked at
    etag: str = ""  # S3's ETag, for spotting duplicates without downloading
    reason: str = ""  # set when the scan already knows the input is unusable (a symlink loop, an unsafe link)
    detail: str = ""  # what is wrong, in words (never bytes of the file)


def classify(name: str) -> str:
    """The kind of input a file name denotes, by suffix (contents are checked later)."""
    lower = name.lower()
    if lower.endswith(PDF_SUFFIXES):
        return "pdf"
    if lower.endswith(IMAGE_SUFFIXES):
        return "image"
    if lower.endswith(ARCHIVE_SUFFIXES):
        return "archive"
    return "unsupported"
