"""`ocr-pipeline eval WORKSPACE [--tests FILE]`: the model canary from the command line, or a user's own test set.

Without --tests it runs the canary the sensor waits for (the shipped pages) on the configured engine and server and
records its verdict in the workspace, so a passed eval lets the sensor launch partitions. With --tests it scores
an olmOCR-Bench-format folder the same way and records nothing the sensor reads. Either way the answers and the
scores are written under eval/<set digest>/ in the workspace, and the exit status says whether the rate held.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any

from ocr_pipeline.launch.preflight import EXIT_USAGE, check_server, check_workspace, explain
from ocr_pipeline.settings import PipelineSettings, deployment_from_env
from ocr_pipeline.workspace.s3 import env_client_for

# The run flags that shape an engine's answers; the others (inputs, groups) mean nothing to an eval.
ENGINE_FLAGS = (
    "server",
    "model",
    "api_key",
    "max_concurrent_requests",
    "max_page_retries",
    "target_longest_image_dim",
    "guided_decoding",
    "server_ready_timeout",
    "route",
)
EXIT_BELOW_THRESHOLD = 1


def add_eval_parser(sub: Any, flags: list[tuple[str, dict[str, object]]], add_flags: Any) -> None:
    """The `eval` subcommand and its flags (the engine's flags of `run`, by the same names)."""
    parser = sub.add_parser("eval", help="score the engine on the model canary (or --tests FILE) before a backfill")
    parser.add_argument("workspace", help="output folder (or s3://bucket/prefix): the verdict and answers go here")
    parser.add_argument("--tests", default=None, help="an olmOCR-Bench JSONL file (PDFs in pdfs/ beside it)")
    parser.add_argument(
        "--min_pass_rate", "--min-pass-rate", type=float, default=None,
        help="pass rate below which the exit status is 1 (default: OCR_PIPELINE_CANARY_MIN_PASS_RATE, 0.8)",
    )  # fmt: skip
    add_flags(parser, [(name, options) for name, options in flags if name in ENGINE_FLAGS])


def _table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [f"{'type':<34} {'passed':>7} {'total':>6} {'rate':>6}"]
    lines += [f"{r['type']:<34} {r['passed']:>7} {r['total']:>6} {r['rate']:>6.3f}" for r in rows]
    return lines


def eval_command(args: argparse.Namespace) -> int:
    """Run the canary (or the user's set), print the verdict and the table per test type, return the exit status."""
    try:
        deployment = deployment_from_env()
        min_rate = deployment.canary_min_pass_rate if args.min_pass_rate is None else args.min_pass_rate
        if not 0.0 <= min_rate <= 1.0:
            raise ValueError("--min_pass_rate must be between 0 and 1")
        settings = PipelineSettings(
            workspace=args.workspace, pdfs=[], **{name: getattr(args, name) for name in ENGINE_FLAGS}
        ).validate()
    except ValueError as exc:
        print(f"ocr-pipeline: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # Imported here to save start-up time: `--help` needs neither the renderer nor the engines.
    from ocr_pipeline.canary.bench_set import BenchSetError, load_bench_set
    from ocr_pipeline.canary.run_canary import run_canary

    try:
        if args.tests:
            load_bench_set(args.tests)  # a bad file fails here, before a server is asked anything
        workspace = check_workspace(settings.workspace, True, env_client_for("workspace", settings.workspace))
        if settings.server:
            check_server(settings, lambda line: print(line, file=sys.stderr, flush=True))
        outcome = run_canary(settings, workspace, min_rate, tests_file=args.tests)
    except BenchSetError as exc:
        print(f"ocr-pipeline: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ocr-pipeline: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - one line a user can act on, as `run` prints (preflight.explain)
        code, line = explain(exc, settings)
        print(f"ocr-pipeline: error: {line}", file=sys.stderr)
        return code
    result, verdict = outcome.result, outcome.verdict
    folder = f"eval/{verdict.fingerprint}"
    for name, text in result.answers.items():
        workspace.write_bytes(f"{folder}/answers/{name}.md", text.encode("utf-8"))
    scores = {"verdict": dataclasses.asdict(verdict), "by_type": result.table_rows(), "failures": result.failures,
              "model_failures": result.model_failures}  # fmt: skip
    workspace.write_bytes(f"{folder}/scores.json", json.dumps(scores, indent=1, sort_keys=True).encode())
    print(verdict.summary(f"eval of {args.tests}" if args.tests else "model canary"))
    print("\n".join(_table(result.table_rows())))
    if result.unreadable_pages:
        print(f"pages that did not render (scored empty): {', '.join(result.unreadable_pages[:20])}")
    if result.model_failures:
        print("pages with only degenerate answers: " + ", ".join(list(result.model_failures)[:20]))
    if result.failures:
        more = f" and {len(result.failures) - 20} more" if len(result.failures) > 20 else ""
        print(f"failed tests: {', '.join(result.failures[:20])}{more}")
    where = workspace.local_path(folder)
    print(f"answers and scores: {where if where is not None else f'{workspace.uri}/{folder}'}")
    if not args.tests and settings.route == "model":
        print(f"verdict recorded for the sensor: {workspace.uri}/canary/{verdict.fingerprint}.json")
    elif not args.tests:
        print("no verdict recorded for the sensor: a routed eval scores the routed pipeline, not the model alone")
    return 0 if verdict.passed else EXIT_BELOW_THRESHOLD
