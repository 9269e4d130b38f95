"""The `ocr-pipeline` command: run every stage in-process for one machine (DESIGN §5 contract)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import TYPE_CHECKING, Any

from ocr_pipeline.settings import (
    DEFAULT_MAX_PAGE_ERROR_RATE,
    DEFAULT_MAX_PAGE_RETRIES,
    DEFAULT_PAGES_PER_GROUP,
    DEFAULT_TARGET_LONGEST_IMAGE_DIM,
    PipelineSettings,
)

if TYPE_CHECKING:
    from ocr_pipeline.defs.local_run import RunSummary

# olmOCR's flag names first; the dashed spellings are accepted as aliases.
_FLAGS: list[tuple[str, dict[str, object]]] = [
    (
        "pdfs",
        {"nargs": "+", "default": [], "help": "PDFs, images, folders, globs, .txt lists or .tar.gz archives"},
    ),
    (
        "server",
        {"default": None, "help": "OpenAI-compatible endpoint (vLLM); without it the CPU engine runs"},
    ),
    ("model", {"default": "allenai/olmOCR-2-7B-1025-FP8", "help": "model name sent to the server"}),
    (
        "api_key",
        {
            "default": os.environ.get("OCR_PIPELINE_API_KEY"),
            "help": "bearer token for the server (never logged; default $OCR_PIPELINE_API_KEY)",
        },
    ),
    ("markdown", {"action": "store_true", "help": "also write markdown/<input path>.md per document"}),
    (
        "apply_filter",
        {"action": "store_true", "help": "drop forms, non-English and SEO spam (as rejections)"},
    ),
    ("pages_per_group", {"type": int, "default": DEFAULT_PAGES_PER_GROUP, "help": "pages per work group"}),
    ("workers", {"type": int, "default": 1, "help": "work groups processed at once"}),
    ("max_concurrent_requests", {"type": int, "default": 64, "help": "requests in flight to the server"}),
    ("max_page_retries", {"type": int, "default": DEFAULT_MAX_PAGE_RETRIES, "help": "attempts per page"}),
    (
        "max_page_error_rate",
        {
            "type": float,
            "default": DEFAULT_MAX_PAGE_ERROR_RATE,
            "help": "largest share of fallback pages a document may have",
        },
    ),
    (
        "target_longest_image_dim",
        {
            "type": int,
            "default": DEFAULT_TARGET_LONGEST_IMAGE_DIM,
            "help": "longest side of rendered page images, in pixels",
        },
    ),
    ("guided_decoding", {"action": "store_true", "help": "send olmOCR's guided_regex with each request"}),
]


_VLLM_FLAGS: list[tuple[str, dict[str, object]]] = [
    ("vllm", {"action": "store_true", "help": "start and manage a local vLLM server instead of --server"}),
    ("vllm_port", {"type": int, "default": 30024, "help": "port of the managed server"}),
    ("gpu_memory_utilization", {"type": float, "default": None, "help": "vLLM's --gpu-memory-utilization"}),
    ("tensor_parallel_size", {"type": int, "default": 1, "help": "vLLM's --tensor-parallel-size"}),
    ("data_parallel_size", {"type": int, "default": 1, "help": "vLLM's --data-parallel-size"}),
    ("vllm_args", {"default": "", "help": "more arguments for `vllm serve`, one shell-quoted string"}),
    ("vllm_ready_timeout", {"type": float, "default": 900.0, "help": "seconds to wait for the model to load"}),
]


def _add_flags(parser: Any, flags: list[tuple[str, dict[str, object]]]) -> None:
    """Each flag under olmOCR's underscore name and its dashed alias (`--pages_per_group`, `--pages-per-group`)."""
    for name, options in flags:
        names = [f"--{name}"] + ([f"--{name.replace('_', '-')}"] if "_" in name else [])
        parser.add_argument(*names, dest=name, **options)  # type: ignore[arg-type]


def build_parser() -> argparse.ArgumentParser:
    """The command's argument parser."""
    parser = argparse.ArgumentParser(prog="ocr-pipeline", description="PDFs and page images to Dolma JSONL.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run every stage for the given inputs in this process")
    run.add_argument("workspace", help="output folder (or s3://bucket/prefix)")
    _add_flags(run, _FLAGS)
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    gpu = run.add_argument_group(
        "local GPU mode: start `vllm serve --model MODEL` here (pip install 'ocr-pipeline[gpu]')"
    )
    _add_flags(gpu, _VLLM_FLAGS)
    pending = sub.add_parser("pending", help="print the work groups of a workspace that have no Dolma shard yet")
    pending.add_argument("workspace", help="output folder (or s3://bucket/prefix)")
    view = sub.add_parser("view", help="write an HTML page of a group: page images beside their text")
    view.add_argument("workspace", help="output folder (or s3://bucket/prefix)")
    view.add_argument("group", help="the work group, e.g. g000001")
    view.add_argument("--out", default=None, help="the HTML file to write (default: <group>.html here)")
    view.add_argument("--max_pages", "--max-pages", type=int, default=300, help="page images to embed at most")
    return parser


def write_viewer(args: argparse.Namespace) -> int:
    """Write the viewer HTML for one group."""
    from pathlib import Path

    from ocr_pipeline.storage import open_workspace
    from ocr_pipeline.viewer import render_group_html

    try:
        page = render_group_html(open_workspace(args.workspace), args.group, args.max_pages)
    except FileNotFoundError:
        print(f"ocr-pipeline: error: group {args.group} has no Dolma shard in {args.workspace}", file=sys.stderr)
        return 2
    out = Path(args.out or f"{args.group}.html")
    out.write_text(page, encoding="utf-8")
    print(f"wrote {out}")
    return 0


def print_pending(workspace_uri: str) -> int:
    """List groups without a shard (never run, failed, or blocked by a check): the backfill to launch."""
    from ocr_pipeline.layout import dolma_key
    from ocr_pipeline.stages.inventory import list_groups
    from ocr_pipeline.storage import open_workspace

    workspace = open_workspace(workspace_uri)
    for group in list_groups(workspace):
        if not workspace.exists(dolma_key(group)):
            print(group)
    return 0


def settings_from_args(args: argparse.Namespace) -> PipelineSettings:
    """Plain settings from parsed flags."""
    return PipelineSettings(
        workspace=args.workspace,
        **{name: getattr(args, name) for name, _ in _FLAGS},
    ).validate()


def print_summary(s: RunSummary) -> None:
    """The final report: documents, pages, rejections by reason, speed."""
    rate = s.pages / s.seconds if s.seconds else 0.0
    failed = f" ({len(s.failed_groups)} failed: {', '.join(s.failed_groups)})" if s.failed_groups else ""
    reasons = ", ".join(f"{k}={v}" for k, v in sorted(s.rejected.items()))
    print(f"groups run:     {s.groups}{failed}")
    print(f"documents:      {s.documents}")
    print(f"pages:          {s.pages} ({s.fallback_pages} fallback)")
    print(f"rejected:       {sum(s.rejected.values())}" + (f" ({reasons})" if reasons else ""))
    print(f"time:           {s.seconds:.1f}s, {rate:.2f} pages/s")
    if s.unaccounted:
        print(f"UNACCOUNTED inputs (a bug, please report): {s.unaccounted[:10]}")


def _run_with_managed_vllm(args: argparse.Namespace, settings: PipelineSettings) -> RunSummary:
    """Start `vllm serve` (the same launch settings the Kubernetes pod uses), run against it, stop it."""
    import shlex

    from ocr_pipeline.defs.local_run import run_local
    from ocr_pipeline.vlm.launcher import ManagedVllmServer, VllmLaunchSettings

    launch = VllmLaunchSettings(
        model=settings.model,
        port=args.vllm_port,
        gpu_memory_utilization=args.gpu_memory_utilization,
        tensor_parallel_size=args.tensor_parallel_size,
        data_parallel_size=args.data_parallel_size,
        extra_args=tuple(shlex.split(args.vllm_args)),
    )
    with ManagedVllmServer(launch, ready_timeout_s=args.vllm_ready_timeout) as server:
        print(f"vLLM ready at {server.url} (log: {server.log_path})", file=sys.stderr)
        settings.server = server.url
        return run_local(settings, show_progress=not args.quiet)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.command == "pending":
        return print_pending(args.workspace)
    if args.command == "view":
        return write_viewer(args)
    try:
        settings = settings_from_args(args)
    except ValueError as exc:
        print(f"ocr-pipeline: error: {exc}", file=sys.stderr)
        return 2
    if args.vllm and settings.server:
        print("ocr-pipeline: error: --vllm starts its own server; drop --server", file=sys.stderr)
        return 2
    if not settings.pdfs:
        print("ocr-pipeline: no --pdfs given; resuming the groups already in the workspace", file=sys.stderr)
    from ocr_pipeline.defs.local_run import run_local
    from ocr_pipeline.sources import InputSpecError, check_specs
    from ocr_pipeline.vlm.client import ServerNotReadyError
    from ocr_pipeline.vlm.launcher import VllmServerError

    try:
        check_specs(settings.pdfs)
        if args.vllm:
            summary = _run_with_managed_vllm(args, settings)
        else:
            summary = run_local(settings, show_progress=not args.quiet)
    except InputSpecError as exc:
        print(f"ocr-pipeline: error: {exc}", file=sys.stderr)
        return 2
    except (VllmServerError, ServerNotReadyError) as exc:  # the managed server never came up, or kept dying
        print(f"ocr-pipeline: error: {exc}", file=sys.stderr)
        return 1
    print_summary(summary)
    return 0 if summary.ok else 1


if __name__ == "__main__":
    sys.exit(main())
