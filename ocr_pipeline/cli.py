"""The `ocr-pipeline` command: run every stage in-process for one machine (flags keep olmOCR's names)."""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import sys
import threading
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ocr_pipeline.eval_command import add_eval_parser, eval_command
from ocr_pipeline.inputs.specs import check_specs
from ocr_pipeline.launch.preflight import (
    EXIT_CODES,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    check_server,
    check_workspace,
    explain,
)
from ocr_pipeline.launch.vllm_server import ManagedVllmServer, VllmLaunchSettings
from ocr_pipeline.pdf.sandbox.parent import prestart_reader
from ocr_pipeline.runtime.stop_signals import stop_on_sigterm
from ocr_pipeline.settings import PipelineSettings, base_type, declared_default, field_types, fields_of, values_from_env
from ocr_pipeline.stages.pdf_inventory import list_groups
from ocr_pipeline.viewer import render_group_html
from ocr_pipeline.workspace.commit import pending_groups
from ocr_pipeline.workspace.keys import view_key
from ocr_pipeline.workspace.s3 import env_client_for
from ocr_pipeline.workspace.storage import Workspace, open_workspace

if TYPE_CHECKING:
    from ocr_pipeline.local_run import RunLog, RunSummary

EPILOG = "exit status:\n" + "\n".join(f"  {code}  {meaning}" for code, meaning in EXIT_CODES)


def _flags_of(cls: type, defaults: Mapping[str, Any]) -> list[tuple[str, str, dict[str, object]]]:
    """(flag, field, argparse options) for each field of `cls` declared as a flag: its help, type and default."""
    flags: list[tuple[str, str, dict[str, object]]] = []
    kinds = field_types(cls)
    for spec in fields_of(cls):
        flag = spec.metadata["flag"]
        if not flag:
            continue
        kind, default = kinds[spec.name], defaults.get(spec.name, declared_default(spec))
        options: dict[str, object] = {"help": spec.metadata["help"]}
        if kind is bool:
            options.update(action="store_true", default=default)
        elif typing.get_origin(kind) is list:
            options.update(nargs="+", default=[])
        elif kind == Sequence[str]:
            options["default"] = shlex.join(default)  # one shell-quoted string, split again by _vllm_settings
        else:
            options["default"] = default
            if base_type(kind) in (int, float):
                options["type"] = base_type(kind)
        flags.append((spec.name if flag is True else str(flag), spec.name, options))
    return flags


def run_flags() -> list[tuple[str, dict[str, object]]]:
    """The run command's flags, derived from PipelineSettings (olmOCR's names; each field's help and default).

    A flag's default is its OCR_PIPELINE_* variable when that is set (so `export` works for the CLI as it does
    for a code location), else the declared default; `--pdfs` is the exception: inputs are always explicit.
    """
    exported = values_from_env(PipelineSettings, env_defaults=False)
    return [(flag, options) for flag, _, options in _flags_of(PipelineSettings, exported)]


def vllm_flags() -> list[tuple[str, dict[str, object]]]:
    """The local GPU mode's flags: `--vllm`, then VllmLaunchSettings' flag fields with their declared defaults."""
    help_ = "start and manage a local vLLM server instead of --server"
    start: tuple[str, dict[str, object]] = ("vllm", {"action": "store_true", "help": help_})
    return [start, *((flag, options) for flag, _, options in _flags_of(VllmLaunchSettings, {}))]


def _vllm_settings(args: argparse.Namespace, model: str) -> VllmLaunchSettings:
    """The launch settings from the `--vllm*` flags (the same settings the Kubernetes pod's sidecar uses)."""
    values: dict[str, Any] = {name: getattr(args, flag) for flag, name, _ in _flags_of(VllmLaunchSettings, {})}
    return VllmLaunchSettings(model=model, **{**values, "extra_args": tuple(shlex.split(values["extra_args"]))})


def _add_flags(parser: Any, flags: list[tuple[str, dict[str, object]]]) -> None:
    """Each flag under olmOCR's underscore name and its dashed alias (`--pages_per_group`, `--pages-per-group`)."""
    for name, options in flags:
        names = [f"--{name}"] + ([f"--{name.replace('_', '-')}"] if "_" in name else [])
        parser.add_argument(*names, dest=name, **options)


def build_parser() -> argparse.ArgumentParser:
    """The command's argument parser."""
    parser = argparse.ArgumentParser(prog="ocr-pipeline", description="PDFs and page images to Dolma JSONL.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser(
        "run",
        help="run every stage for the given inputs in this process",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("workspace", help="output folder (or s3://bucket/prefix)")
    _add_flags(run, run_flags())
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--verbose", action="store_true", help="full tracebacks on the console (always in the log file)")
    gpu = run.add_argument_group(
        "local GPU mode: start `vllm serve --model MODEL` here (pip install 'ocr-pipeline[gpu]')"
    )
    _add_flags(gpu, vllm_flags())
    pending = sub.add_parser("pending", help="print the work groups of a workspace that are not done yet")
    pending.add_argument("workspace", help="output folder (or s3://bucket/prefix)")
    view = sub.add_parser("view", help="write an HTML page of a group: page images beside their text")
    view.add_argument("workspace", help="output folder (or s3://bucket/prefix)")
    view.add_argument("group", help="the work group, e.g. g000001")
    view.add_argument("--out", default=None, help="HTML file to write (default: view/<group>.html in the workspace)")
    view.add_argument("--max_pages", "--max-pages", type=int, default=300, help="page images to embed at most")
    add_eval_parser(sub, run_flags(), _add_flags)
    return parser


def _open_workspace(uri: str) -> Workspace:
    """The workspace of a command without Dagster: an s3:// one with the client its role variables configure."""
    return open_workspace(uri, env_client_for("workspace", uri))


def write_viewer(args: argparse.Namespace) -> int:
    """Write the viewer HTML for one group."""
    try:
        workspace = _open_workspace(args.workspace)
        page = render_group_html(workspace, args.group, args.max_pages)
    except FileNotFoundError:
        print(f"ocr-pipeline: error: group {args.group} has no Dolma shard in {args.workspace}", file=sys.stderr)
        return 2
    if args.out:
        out = Path(args.out).resolve()
        out.write_text(page, encoding="utf-8")
        print(f"wrote {out}")
        return 0
    # Inside the workspace, never the current folder: a checkout or a home folder stays clean.
    key = view_key(args.group)
    workspace.write_bytes(key, page.encode("utf-8"))
    local = workspace.local_path(key)
    print(f"wrote {local.resolve() if local is not None else f'{workspace.uri}/{key}'}")
    return 0


def print_pending(workspace_uri: str) -> int:
    """List groups without a shard (never run, failed, or blocked by a check): the backfill to launch."""
    workspace = _open_workspace(workspace_uri)
    for group in pending_groups(workspace, list_groups(workspace)):
        print(group)
    return 0


def settings_from_args(args: argparse.Namespace) -> PipelineSettings:
    """Plain settings from parsed flags."""
    return PipelineSettings(
        workspace=args.workspace,
        **{name: getattr(args, name) for name, _ in run_flags()},
    ).validate()


def print_summary(summary: RunSummary, log: str | None = None) -> None:
    """The final report on stdout (see local_run.summary_lines)."""
    # Imported here to save start-up time: local_run loads Dagster, which --help and `pending` never need.
    from ocr_pipeline.local_run import summary_lines

    print("\n".join(summary_lines(summary, log)))


def _run_with_managed_vllm(args: argparse.Namespace, settings: PipelineSettings) -> RunSummary:
    """Start `vllm serve` (the same launch settings the Kubernetes pod uses), run against it, stop it."""
    # Imported here to save start-up time: Dagster loads only when a run starts, not for --help or `pending`.
    from ocr_pipeline.local_run import run_local

    launch = _vllm_settings(args, settings.model)
    with ManagedVllmServer(launch) as server:
        print(f"vLLM ready at {server.url} (log: {server.log_path})", file=sys.stderr)
        settings.server = server.url
        return run_local(settings, show_progress=not args.quiet, verbose=args.verbose)


def _console_logging(verbose: bool) -> None:
    """Warnings on stderr; traces and Python warnings only with --verbose (the log file gets them always)."""
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    if not verbose:
        console.addFilter(lambda r: not r.name.startswith(("ocr_pipeline.trace", "py.warnings")))
    root.addHandler(console)
    for noisy in ("httpx", "alembic"):  # a line per request or migration is noise, even in the log file
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.captureWarnings(True)


def run_command(args: argparse.Namespace) -> int:
    """`ocr-pipeline run`: check the workspace and server once, run every pending group, report, exit code."""
    _console_logging(args.verbose)
    try:
        settings = settings_from_args(args)
    except ValueError as exc:
        print(f"ocr-pipeline: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.vllm and settings.server:
        print("ocr-pipeline: error: --vllm starts its own server; drop --server", file=sys.stderr)
        return EXIT_USAGE
    log: RunLog | None = None
    stop_on_sigterm()  # `kill PID` stops the run (exit 130, resumable) even where SIGINT is ignored
    try:
        check_specs(settings.pdfs, env_client_for("input", *settings.pdfs))
        workspace = check_workspace(
            settings.workspace, bool(settings.pdfs), env_client_for("workspace", settings.workspace)
        )
        # Only now that there is work to do (bad input fails fast, without either): the PDF reader child starts,
        # its imports overlapping Dagster's just below, on another core.
        prestart_reader(settings.pdf_memory_mb)
        # Imported here to save start-up time: Dagster loads only when a run starts, not for --help or `pending`.
        from ocr_pipeline.local_run import RunLog, run_local

        log = RunLog(workspace)
        if not settings.pdfs:
            print("ocr-pipeline: no --pdfs given; resuming the groups already in the workspace", file=sys.stderr)
        if args.vllm:
            summary = _run_with_managed_vllm(args, settings)
        else:
            if settings.server:
                check_server(settings, lambda line: print(line, file=sys.stderr, flush=True))
            summary = run_local(settings, show_progress=not args.quiet, verbose=args.verbose)
    except KeyboardInterrupt:
        print("ocr-pipeline: interrupted; run the same command again to resume", file=sys.stderr)
        if log:
            log.close()
            log = None
        _exit_now_if_threads_run()
        return EXIT_INTERRUPTED
    except Exception as exc:
        code, line = explain(exc, settings)
        logging.getLogger("ocr_pipeline.trace").error("run failed: %s", line, exc_info=exc)
        where = f" (log: {log.shown})" if log else ""
        print(f"ocr-pipeline: error: {line}{where}", file=sys.stderr)
        return code
    finally:
        if log:
            log.close()
    print_summary(summary, log.shown)
    return 0 if summary.ok else 1


def _exit_now_if_threads_run() -> None:
    """Leave at once (exit 130) when groups still run in threads of this process: interpreter shutdown would stop
    them inside native code (DuckDB's checks, measured: `terminate called ... exception not rethrown`, an abort
    instead of 130). Nothing is lost: every group's outputs are published under a done marker written last, so the
    rerun resumes exactly; the log is closed and the streams flushed first."""
    if any(t.is_alive() and t is not threading.main_thread() for t in threading.enumerate()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    try:
        parser = build_parser()  # flag defaults come from OCR_PIPELINE_* variables: one may not parse
    except ValueError as exc:
        print(f"ocr-pipeline: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    args = parser.parse_args(argv)
    if args.command == "pending":
        return print_pending(args.workspace)
    if args.command == "view":
        return write_viewer(args)
    if args.command == "eval":
        return eval_command(args)
    return run_command(args)


if __name__ == "__main__":
    sys.exit(main())
