"""The OCR worker for one work group: `python -m ocr_pipeline.worker`, a Dagster Pipes process or a plain CLI.

The same entrypoint runs in a subprocess next to Dagster, in the Kubernetes pod beside vLLM, and in tests.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import json
import os
import signal
import sys
import threading
import time
from dataclasses import asdict
from typing import Any

from dagster_pipes import (
    DAGSTER_PIPES_CONTEXT_ENV_VAR,
    DAGSTER_PIPES_MESSAGES_ENV_VAR,
    PipesMessageWriter,
    PipesS3MessageWriter,
    decode_param,
    open_dagster_pipes,
)

from ocr_pipeline.engines.base import OcrEngine
from ocr_pipeline.engines.factory import build_engine
from ocr_pipeline.engines.vlm.client import VlmClientError, wait_for_server
from ocr_pipeline.progress import LoggingProgress, ProgressSink
from ocr_pipeline.routing.router import page_router
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.ocr_manifest import OcrResult
from ocr_pipeline.stages.page_images import expected_pages
from ocr_pipeline.stages.vlm_ocr_outputs import ocr_with_engine
from ocr_pipeline.workspace.s3 import client_from_env, env_client_for
from ocr_pipeline.workspace.storage import open_workspace

API_KEY_ENV = "OCR_PIPELINE_API_KEY"
SETTINGS_ENV = "OCR_PIPELINE_SETTINGS"
# prctl(2) option: the signal this process gets when its parent dies (Linux).
PR_SET_PDEATHSIG = 1
# The worker's exit code when the server fails it (the step's error carries the cause itself).
EXIT_SERVER = 3
EXIT_INTERRUPTED = 130
# The worker's exit code when its launcher died before it started working (nobody reads it: it is for ps).
EXIT_ORPHANED = 1
# Set by a local launcher to its own pid; absent in a Kubernetes pod, which has no launcher process to outlive.
PARENT_PID_ENV = "OCR_PIPELINE_WORKER_PARENT"
# The asset the worker computes (its op, render_and_ocr, computes page_images too).
OCR_ASSET = "vlm_ocr_outputs"


def die_with_parent(*, pdeathsig: bool = True, poll_s: float = 1.0, expected_parent: int | None = None) -> None:
    """End this process when its parent dies: SIGTERM from the kernel on Linux, and a watchdog thread anywhere.

    A SIGKILLed CLI or Dagster step must not leave a worker running and writing to the workspace.
    `expected_parent` is the pid of the process that launched us (PARENT_PID_ENV): a parent killed while this
    worker was still importing is gone before the kernel could be asked to tell us, so that is checked too.
    """
    parent = expected_parent or os.getppid()
    # An ignored SIGTERM passes through exec: a launcher that ignores it (a shell's background job, some CI runners)
    # would leave the kernel's and the watchdog's SIGTERM doing nothing, and the orphan running (seen in CI).
    if signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
        with contextlib.suppress(ValueError):  # not the main thread: the launcher's choice stands
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if pdeathsig and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watchdog below still covers it
    if os.getppid() != parent:
        # Checked after prctl: a parent that dies from here on is reported by the kernel.
        print(f"ocr worker: the process that launched it ({parent}) is gone; exiting", file=sys.stderr)
        os._exit(EXIT_ORPHANED)
    if parent <= 1:
        return  # started by init (a container's PID 1 has no parent to outlive)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def worker_invocation(settings: PipelineSettings, group: str) -> tuple[list[str], dict[str, str]]:
    """The worker's arguments and environment; the subprocess and the Kubernetes pod both use this one recipe."""
    public = settings.to_dict(redact=True)
    public.pop("api_key", None)
    env = {SETTINGS_ENV: json.dumps(public, sort_keys=True)}
    if settings.api_key:
        env[API_KEY_ENV] = settings.api_key  # an environment variable, never an argument (ps would show it)
    return ["-m", "ocr_pipeline.worker", "--group", group], env


def settings_from_launch(environ: dict[str, str] | None = None) -> PipelineSettings:
    """Rebuild the settings a worker was launched with (see worker_invocation)."""
    environ = dict(os.environ if environ is None else environ)
    if SETTINGS_ENV not in environ:
        raise ValueError(f"{SETTINGS_ENV} is not set: launch the worker through worker_invocation()")
    data: dict[str, Any] = json.loads(environ[SETTINGS_ENV])
    data["api_key"] = environ.get(API_KEY_ENV) or None
    return PipelineSettings(**data).validate()


def run_vlm_group(
    settings: PipelineSettings, group: str, log: Any = print, progress: ProgressSink | None = None
) -> tuple[OcrResult, OcrEngine]:
    """OCR one group against the VLM server: wait for readiness, then every page with bounded concurrency."""
    if not settings.server:
        raise ValueError("the VLM worker needs a server URL")
    models = asyncio.run(wait_for_server(settings.server, settings.server_ready_timeout, api_key=settings.api_key))
    log(f"server {settings.server} ready, serving {models}")
    engine = build_engine(settings)
    # The worker is an entry point (its own process or pod): its S3 client comes from its role variables.
    workspace = open_workspace(settings.workspace, env_client_for("workspace", settings.workspace))
    # A page that falls back stores its full layout, read from its input again (see stages.fallback_layouts).
    inputs = env_client_for("input", *settings.pdfs)
    dim, cap, router = settings.target_longest_image_dim, settings.pdf_memory_mb, page_router(settings)
    advance = None
    if progress is not None:
        progress.phase(f"ocr {group}", expected_pages(workspace, group))
        advance = progress.advance
    result = ocr_with_engine(workspace, group, engine, dim, advance, input_client=inputs, pdf_memory_mb=cap,
                             router=router)  # fmt: skip
    return result, engine


def summary(result: OcrResult, engine: OcrEngine) -> dict[str, Any]:
    """The worker's report: which engine and model, counts, tokens, speed (launch.ocr_metadata reads it back)."""
    data = asdict(result)
    data["pages_per_second"] = round(result.pages_per_second, 3)
    data["seconds"] = round(result.seconds, 3)
    return {**data, "engine": engine.name, "model": engine.model}


def _reported_asset(in_scope: Any) -> str | None:
    """The asset the report is for: vlm_ocr_outputs when the launching op computes page_images too, else the one."""
    keys = list(in_scope or [])
    return OCR_ASSET if len(keys) > 1 and OCR_ASSET in keys else None


def message_writer(environ: dict[str, str] | None = None) -> PipesMessageWriter[Any] | None:
    """PipesS3MessageWriter when the launcher reads the messages from S3 (its params name a bucket), else None.

    The Kubernetes launcher's reader for an S3 workspace (launch.k8s.pipes.s3_message_reader) asks for chunks in
    the workspace bucket, written with the workspace's credentials (its role variables, as for the workspace);
    None keeps dagster_pipes' default writer: the file the subprocess launcher reads, or stdout for a pod's log.
    """
    environ = dict(os.environ if environ is None else environ)
    params = decode_param(environ[DAGSTER_PIPES_MESSAGES_ENV_VAR]) if DAGSTER_PIPES_MESSAGES_ENV_VAR in environ else {}
    if "bucket" not in params:
        return None
    return PipesS3MessageWriter(client=client_from_env("workspace", environ))


def main(argv: list[str] | None = None) -> int:
    """Run one group; under Dagster Pipes, report the materialization back to the asset."""
    parser = argparse.ArgumentParser(prog="python -m ocr_pipeline.worker")
    parser.add_argument("--group", required=True, help="the work group (partition key) to OCR")
    args = parser.parse_args(argv)
    die_with_parent(expected_parent=int(os.environ.get(PARENT_PID_ENV) or 0) or None)
    settings = settings_from_launch()
    try:
        if DAGSTER_PIPES_CONTEXT_ENV_VAR not in os.environ:
            print(json.dumps(summary(*run_vlm_group(settings, args.group))))
            return 0
        with open_dagster_pipes(message_writer=message_writer()) as pipes:
            # Under Pipes the step's log is the only place a person sees this process, so progress goes there;
            # the plain CLI keeps stdout for its one JSON report.
            progress = LoggingProgress(pipes.log.info)
            try:
                report = summary(*run_vlm_group(settings, args.group, log=pipes.log.info, progress=progress))
            finally:
                progress.close()
            report["languages"] = {"raw_value": report["languages"], "type": "json"}
            pipes.report_asset_materialization(metadata=report, asset_key=_reported_asset(pipes.asset_keys))
    except VlmClientError as exc:
        # One line here; Pipes has already handed the exception (and its trace) to the step.
        print(f"ocr worker {args.group}: {exc}", file=sys.stderr)
        return EXIT_SERVER
    except KeyboardInterrupt:
        # A terminal's Ctrl-C reaches this child too: the command that started it says "interrupted" once.
        return EXIT_INTERRUPTED
    return 0


if __name__ == "__main__":
    sys.exit(main())
