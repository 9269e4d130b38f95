"""Before any group starts: the workspace and the VLM server checked once, and whole-run failures as one line."""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ocr_pipeline.engines.vlm.client import ServerNotOpenAIError, ServerNotReadyError, api_base, wait_for_server
from ocr_pipeline.inputs.specs import InputSpecError
from ocr_pipeline.launch.vllm_server import VllmServerError
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.pdf_inventory import list_groups
from ocr_pipeline.workspace.storage import Workspace, open_workspace

# The command's exit codes: --help's epilog is built from this one list, and docs/cli.md's table is tested against it.
EXIT_OK, EXIT_GROUP_FAILED, EXIT_USAGE, EXIT_SERVER, EXIT_STORAGE, EXIT_INTERNAL = 0, 1, 2, 3, 4, 5
EXIT_INTERRUPTED = 130
EXIT_CODES = [
    (EXIT_OK, "every input ended as a document or an explicit rejection"),
    (
        EXIT_GROUP_FAILED,
        "a work group failed (the summary names each with its cause; rerun to resume), or --vllm's server failed",
    ),
    (EXIT_USAGE, "bad arguments, or nothing to do (no --pdfs and no groups in the workspace)"),
    (EXIT_SERVER, "the VLM server is unreachable, refusing, or not OpenAI-compatible"),
    (EXIT_STORAGE, "the workspace or an input bucket is unusable: not writable, bad S3 credentials, no such bucket"),
    (EXIT_INTERNAL, "an unexpected error (a bug: the log file has the trace)"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C, or SIGTERM: `kill PID`); the same command resumes"),
]
# S3 error codes that mean the credentials, not the request, are wrong.
BAD_CREDENTIALS = {"InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "InvalidToken", "ExpiredToken"}
NO_BUCKET = {"NoSuchBucket"}


class RunAbort(Exception):
    """A whole-run failure already put in one plain line, with the exit code it ends the command with."""

    def __init__(self, line: str, exit_code: int) -> None:
        super().__init__(line)
        self.line, self.exit_code = line, exit_code


def check_workspace(uri: str, has_inputs: bool, s3_client: Any | None) -> Workspace:
    """The workspace (`s3_client` for s3://), opened and written once; RunAbort when unusable or nothing to do."""
    hint = "pass --pdfs PATH_OR_GLOB... (PDFs, folders, globs, .txt lists, archives or s3:// prefixes)"
    if not has_inputs and not uri.startswith("s3://") and not Path(uri).is_dir():
        # A mistyped path must not become a new, empty workspace.
        raise RunAbort(f"no workspace at {uri} and no inputs given: {hint}", EXIT_USAGE)
    try:
        workspace = open_workspace(uri, s3_client)
        _check_bucket(workspace)
        if not has_inputs and not list_groups(workspace):
            raise RunAbort(f"the workspace {uri} holds no work groups and no inputs were given: {hint}", EXIT_USAGE)
        probe = f"logs/.write-check-{os.getpid()}"  # one per process: two runs may share a workspace
        workspace.write_bytes(probe, b"")  # fails now, not after an hour, when it is read-only
        workspace.delete(probe)
    except OSError as exc:  # local folders; S3 errors are botocore's, put in words by explain()
        raise RunAbort(f"workspace {uri} is not writable: {exc.strerror or exc}", EXIT_STORAGE) from exc
    return workspace


def _check_bucket(workspace: Workspace) -> None:
    """HEAD the workspace's bucket: a missing one is named, even where a server would create it on a write."""
    client, bucket = getattr(workspace, "client", None), getattr(workspace, "bucket", None)
    if client is None or bucket is None:
        return
    try:
        client.head_bucket(Bucket=bucket)
    except Exception as exc:
        code = str((getattr(exc, "response", None) or {}).get("Error", {}).get("Code", ""))
        if code in ("404", "NoSuchBucket", "NotFound"):
            raise RunAbort(f"S3 bucket {bucket} does not exist ({workspace.uri})", EXIT_STORAGE) from exc
        raise


def check_server(settings: PipelineSettings, say: Callable[[str], None]) -> list[str]:
    """Wait (at most --server_ready_timeout) for GET /v1/models once, before any group; RunAbort if it fails."""
    assert settings.server
    url = api_base(settings.server)
    say(f"waiting for VLM server at {url} (up to {settings.server_ready_timeout:g}s, --server_ready_timeout)")
    models = asyncio.run(wait_for_server(settings.server, settings.server_ready_timeout, api_key=settings.api_key))
    say(f"VLM server ready, serving {', '.join(models) or 'no models'}")
    if models and settings.model not in models:
        say(f"warning: the server does not list --model {settings.model}; requests may fail")
    return models


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and its causes (Dagster wraps a step's error in its own)."""
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in found and len(found) < 12:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def _s3_line(exc: BaseException) -> str | None:
    """One line for a botocore failure, None when it is not one."""
    code = str((getattr(exc, "response", None) or {}).get("Error", {}).get("Code", ""))
    bucket = str((getattr(exc, "response", None) or {}).get("Error", {}).get("BucketName", ""))
    name = type(exc).__name__
    if code in BAD_CREDENTIALS or code == "403":
        return f"S3 refused the credentials ({code}); check AWS_* or OCR_PIPELINE_<ROLE>_AWS_* variables"
    if code in NO_BUCKET:
        return f"S3 bucket {bucket or '(named in the URI)'} does not exist ({code})"
    if name in ("NoCredentialsError", "PartialCredentialsError"):
        return "no S3 credentials found (set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE)"
    if name in ("EndpointConnectionError", "ConnectTimeoutError"):
        return f"S3 endpoint unreachable: {exc}"
    return None


def explain(exc: BaseException, settings: PipelineSettings | None = None) -> tuple[int, str]:
    """The exit code and one plain line for an exception that ended a whole run."""
    for inner in _chain(exc):
        if isinstance(inner, RunAbort):
            return inner.exit_code, inner.line
        if isinstance(inner, InputSpecError):
            return EXIT_USAGE, str(inner)
        if isinstance(inner, VllmServerError) or (isinstance(inner, ServerNotReadyError) and not inner.url):
            # The command's own --vllm server (its log has the reason): a failed run, as for a group.
            return EXIT_GROUP_FAILED, str(inner).splitlines()[0]
        if isinstance(inner, ServerNotOpenAIError):
            return EXIT_SERVER, f"VLM server at {inner.url}: {inner.cause}"
        if isinstance(inner, ServerNotReadyError):
            wait = f" after {settings.server_ready_timeout:g}s" if settings else ""
            return EXIT_SERVER, f"VLM server at {inner.url or '?'} unreachable{wait}: {inner.cause or inner}"
        line = _s3_line(inner)
        if line:
            return EXIT_STORAGE, line
        if isinstance(inner, OSError) and inner.errno in (errno.EACCES, errno.EROFS, errno.EPERM, errno.ENOSPC):
            return EXIT_STORAGE, f"workspace not writable: {inner.filename or ''}: {inner.strerror}"
    return EXIT_INTERNAL, f"unexpected error: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
