"""Reading an inventoried input: a local path as is, workspace and S3 objects through a bounded temporary copy."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ocr_pipeline.settings import MAX_INPUT_BYTES
from ocr_pipeline.workspace.s3 import is_missing, parse_s3_uri, require_client
from ocr_pipeline.workspace.storage import Workspace
from ocr_pipeline.workspace.tables import local_copy


class InputMissing(FileNotFoundError):
    """The input was inventoried but is gone now (deleted, moved, or its bucket is unreadable)."""


class InputTooLarge(ValueError):
    """The input is larger than MAX_INPUT_BYTES; it is refused before any byte is downloaded."""


@contextmanager
def open_input(location: str, workspace: Workspace, input_client: Any | None) -> Iterator[str]:
    """A local path holding the input's bytes for the duration of the block (`input_client` for s3:// inputs)."""
    if location.startswith("ws:"):
        try:
            with local_copy(workspace, location[3:]) as path:
                yield str(path)
        except FileNotFoundError as exc:
            raise InputMissing(str(exc)) from exc
        return
    if location.startswith("s3://"):
        with _s3_copy(location, input_client) as path:
            yield path
        return
    if not os.path.isfile(location):
        raise InputMissing(location)
    yield location


@contextmanager
def _s3_copy(uri: str, client: Any) -> Iterator[str]:
    client = require_client(uri, client, "input")
    bucket, key = parse_s3_uri(uri)
    with tempfile.TemporaryDirectory(prefix="ocr-input-") as tmp:
        path = Path(tmp) / "input"
        try:
            size = int(client.head_object(Bucket=bucket, Key=key).get("ContentLength", 0))
            if size > MAX_INPUT_BYTES:
                raise InputTooLarge(f"{size} bytes, more than {MAX_INPUT_BYTES}")
            client.download_file(bucket, key, str(path))
        except Exception as exc:
            if is_missing(exc):
                raise InputMissing(uri) from exc
            raise
        yield str(path)
