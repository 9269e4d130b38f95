"""Inputs under S3 prefixes: paginated listings resumable with StartAfter, globs matched on keys."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from typing import Any

from ocr_pipeline.inputs.refs import InputRef, classify
from ocr_pipeline.workspace.s3 import parse_s3_uri, require_client
from ocr_pipeline.workspace.safepaths import safe_relative_path

LIST_PAGE_SIZE = 1000


def _split_glob(key: str) -> tuple[str, str | None]:
    """(literal prefix to list, glob pattern on the full key or None)."""
    for index, char in enumerate(key):
        if char in "*?[":
            return key[:index], key
    return key, None


def list_s3_inputs(spec: str, client: Any, *, start_after: str | None = None) -> Iterator[InputRef]:
    """Objects a spec names: `s3://b/prefix/` (everything under it), `s3://b/p/*.pdf` (a glob) or one key.

    Keys come in S3's lexicographic order, page by page, so memory stays flat for any prefix size.
    """
    client = require_client(spec, client, "input")
    bucket, key = parse_s3_uri(spec)
    prefix, pattern = _split_glob(key)
    # Without a glob or a trailing slash, `s3://b/x` is the object `x`, or else the folder `x/`.
    bare = pattern is None and bool(key) and not key.endswith("/")
    kwargs: dict[str, Any] = {"Bucket": bucket, "Prefix": prefix, "PaginationConfig": {"PageSize": LIST_PAGE_SIZE}}
    if start_after:
        kwargs["StartAfter"] = start_after
    for page in client.get_paginator("list_objects_v2").paginate(**kwargs):
        for item in page.get("Contents", []):
            name = item["Key"]
            if name.endswith("/"):
                continue
            if bare and name != key and not name.startswith(key + "/"):
                continue
            # fnmatch's `*` crosses `/`, like a recursive glob; `**/` is read the same way.
            if pattern is not None and not fnmatch.fnmatchcase(name, pattern.replace("**/", "*")):
                continue
            # Mirrored paths are relative to the folder the spec starts from.
            base = key + "/" if bare and name != key else (key if bare else prefix)
            root = base[: base.rfind("/") + 1]
            yield InputRef(
                source=f"s3://{bucket}/{name}",
                rel_path=safe_relative_path(name[len(root) :]),
                kind=classify(name),
                path=f"s3://{bucket}/{name}",
                size=int(item.get("Size", 0)),
                etag=str(item.get("ETag", "")).strip('"'),
            )
