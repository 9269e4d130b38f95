"""Run every asset for the given inputs in this process (the `ocr-pipeline run` command), group by group."""

from __future__ import annotations

import logging
import os
import tempfile
import textwrap
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ocr_pipeline.defs.gate_stops import GateStop
from ocr_pipeline.defs.materialize import GroupOutcome, new_instance, run_group_outcome, run_inventory
from ocr_pipeline.defs.parallel_groups import run_in_processes, run_overlapped
from ocr_pipeline.progress import TqdmProgress
from ocr_pipeline.runtime.stop_signals import StopSignalWatch
from ocr_pipeline.settings import PipelineSettings, deployment_from_env
from ocr_pipeline.stages.pdf_inventory import list_groups, read_group
from ocr_pipeline.workspace.commit import pending_groups
from ocr_pipeline.workspace.keys import dolma_key, partial_key, rejected_key
from ocr_pipeline.workspace.s3 import env_client_for
from ocr_pipeline.workspace.storage import Workspace, open_workspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl

# Full error traces go to this logger: the run's log file always, the console only with --verbose.
trace_log = logging.getLogger("ocr_pipeline.trace")
# What the run did, at INFO: the run's log file gets it (the console shows warnings only). Dagster's own step
# events go to its console logger, not here, so without these lines a run that went well left an empty log.
log = logging.getLogger(__name__)


@dataclass
class RunSummary:
    """What a local run produced, for the final report and the exit code."""

    groups: int = 0
    failed_groups: list[str] = field(default_factory=list)
    causes: dict[str, str] = field(default_factory=dict)
    # The blocking checks that stopped each such group, with their failing pages.
    gates: dict[str, tuple[GateStop, ...]] = field(default_factory=dict)
    documents: int = 0
    pages: int = 0
    fallback_pages: int = 0
    routed_pages: int = 0  # read from their text layer by `route auto` (the rest of `pages` went to the engine)
    # Documents rejected for too many fallback pages (rejected/partial/): their pages are in no document above.
    rejected_pages: int = 0
    rejected_fallback_pages: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    unaccounted: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Every group ran and every input ended as a document or an explicit rejection."""
        return not self.failed_groups and not self.unaccounted

    def record(self, group: str, outcome: GroupOutcome) -> None:
        """Take a group's outcome: a signal's interruption stops the whole run, a failure is recorded."""
        if outcome.interrupted:  # Ctrl-C or SIGTERM during the group's run: stop here, as between two runs
            raise KeyboardInterrupt
        if outcome.cause is not None:
            self.fail(group, outcome)

    def fail(self, group: str, outcome: GroupOutcome) -> None:
        """Record a failed group, its one-line cause, and its full trace in the log."""
        self.failed_groups.append(group)
        self.causes[group] = outcome.cause or "failed"
        if outcome.gates:
            self.gates[group] = outcome.gates
        trace_log.error("group %s failed: %s\n%s", group, outcome.cause, outcome.trace)


def run_local(settings: PipelineSettings, *, show_progress: bool = True, verbose: bool = True) -> RunSummary:
    """Inventory the inputs, then run every group without a shard yet; resumable by design."""
    started = time.monotonic()
    settings.validate()
    # Without --verbose, Dagster's console shows no step errors (their traces go to the log file instead).
    level = "WARNING" if verbose else "CRITICAL"
    # A client configured as the assets' `workspace_s3` is (the same role variables), for reading it after the run.
    workspace = open_workspace(settings.workspace, env_client_for("workspace", settings.workspace))
    instance = new_instance()
    # A signal Dagster's handler noted outside a step's code ends that run as a success: the watch still hears it.
    with StopSignalWatch() as watch:
        run_inventory(settings, instance)
        watch.after_run()  # Dagster's run gave SIGTERM SIGINT's handler, ignored in a background job
        # Only the done marker counts: a shard without it is a group that stopped midway through its commit.
        pending = pending_groups(workspace, list_groups(workspace))
        summary = RunSummary(groups=len(pending))
        log.info("inventory of %s: %d groups to run %s", settings.workspace, len(pending), pending[:20])
        # Read once here and passed to every group's run (the op never reads the environment).
        stream = deployment_from_env().stream_pages
        if settings.server and stream and len(pending) > 1:
            run_overlapped(settings, pending, level, show_progress, summary.record)
        elif settings.workers > 1 and len(pending) > 1:
            # Separate processes: the CPU engine and rendering hold the GIL, threads would not scale.
            run_in_processes(settings, pending, level, stream, show_progress, summary.record)
        else:
            progress = TqdmProgress(disable=not show_progress)
            for index, group in enumerate(pending, 1):
                progress.prefix = f"[{index}/{len(pending)}] "
                outcome = run_group_outcome(
                    settings, group, instance, progress, console_level=level, stream_pages=stream
                )
                watch.after_run()
                summary.record(group, outcome)
            progress.close()
    for group in pending:
        if group not in summary.failed_groups:
            _account(workspace, group, summary)
    summary.seconds = time.monotonic() - started
    for line in summary_lines(summary):
        log.info("summary: %s", line)
    return summary


def _account(workspace: Workspace, group: str, summary: RunSummary) -> None:
    """Add a finished group's documents and rejections, and check every input is in one of them."""
    docs = read_gzip_jsonl(workspace.read_bytes(dolma_key(group)))
    ledger = read_jsonl(workspace, rejected_key(group))
    summary.documents += len(docs)
    for doc in docs:
        summary.pages += len(doc["attributes"]["pdf_page_numbers"])
        summary.fallback_pages += doc["metadata"]["total-fallback-pages"]
        summary.routed_pages += int(doc["metadata"].get("total-routed-pages") or 0)
    partial = read_gzip_jsonl(workspace.read_bytes(partial_key(group))) if workspace.exists(partial_key(group)) else []
    for doc in partial:
        summary.rejected_pages += len(doc["attributes"]["pdf_page_numbers"])
        summary.rejected_fallback_pages += doc["metadata"]["total-fallback-pages"]
    summary.rejected.update(line["reason"] for line in ledger)
    ended = {d["metadata"]["Source-File"] for d in docs} | {line["source"] for line in ledger}
    summary.unaccounted += [r["source"] for r in read_group(workspace, group) if r["source"] not in ended]
    reasons = dict(Counter(line["reason"] for line in ledger))
    log.info("group %s: %d documents, %d rejected %s", group, len(docs), len(ledger), reasons or "")


def summary_lines(s: RunSummary, log: str | None = None) -> list[str]:
    """The final report: groups (each failed one with its cause), documents, pages, rejections, speed, log."""
    rate = s.pages / s.seconds if s.seconds else 0.0
    failed = f" ({len(s.failed_groups)} failed: {', '.join(s.failed_groups)})" if s.failed_groups else ""
    reasons = ", ".join(f"{k}={v}" for k, v in sorted(s.rejected.items()))
    lines = [f"groups run:     {s.groups}{failed}"]
    for group in s.failed_groups:
        lines += gate_lines(group, s.gates[group]) if group in s.gates else [f"  {group}: {s.causes.get(group)}"]
    lines += [
        f"documents:      {s.documents}",
        f"pages:          {s.pages} ({s.fallback_pages} fallback{_routed(s)})"
        + (
            f", and {s.rejected_pages} in documents rejected for fallback pages ({s.rejected_fallback_pages} fallback)"
            if s.rejected_pages
            else ""
        ),
        f"rejected:       {sum(s.rejected.values())}" + (f" ({reasons})" if reasons else ""),
        f"time:           {s.seconds:.1f}s, {rate:.2f} pages/s",
    ]
    if s.unaccounted:
        lines.append(f"UNACCOUNTED inputs (a bug, please report): {s.unaccounted[:10]}")
    if log:
        lines.append(f"log:            {log}")
    return lines


def _routed(s: RunSummary) -> str:
    """`route auto`'s share of the pages, for the summary's pages line ("" when it read none from a layer)."""
    if not s.routed_pages:
        return ""
    return f", {s.routed_pages} read from their text layer, {s.pages - s.routed_pages} by the engine"


def gate_lines(group: str, gates: tuple[GateStop, ...]) -> list[str]:
    """A group a blocking check stopped: each check, its failing pages, and what a person can do about it."""
    lines = []
    for gate in gates:
        lines.append(f"  {group}: stopped by {gate.check}: {gate.summary}")
        lines += [f"    {row}" for row in gate.rows]
    where = ", ".join(sorted({g.declared_in for g in gates if g.declared_in})) or "dbt_like_checks/"
    advice = (
        f"what to do: look at those pages (the check's metadata in the Dagster UI, manifests/ocr/{group}.parquet); "
        f"fix the model or server, or the check ({where}), then run the same command again: pages already read "
        "come from the memo, only the failed ones are asked again."
    )
    return lines + textwrap.wrap(advice, 116, initial_indent="    ", subsequent_indent="    ")


class RunLog:
    """The run's log file, `logs/run-<timestamp>.log` in the workspace (written locally, uploaded for S3)."""

    def __init__(self, workspace: Workspace) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.workspace, self.key = workspace, f"logs/run-{stamp}-{os.getpid()}.log"
        local = workspace.local_path(self.key)
        if local is None:
            self.path = Path(tempfile.mkdtemp(prefix="ocr-pipeline-log-")) / Path(self.key).name
            self.shown = f"{workspace.uri}/{self.key}"
        else:
            self.path, self.shown = local, str(local)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.handler = logging.FileHandler(self.path, encoding="utf-8")
        self.handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        self.handler.setLevel(logging.INFO)
        logging.getLogger().addHandler(self.handler)

    def close(self) -> None:
        """Stop logging to the file; on S3, publish it under logs/."""
        logging.getLogger().removeHandler(self.handler)
        self.handler.close()
        if self.workspace.local_path(self.key) is None:
            try:
                self.workspace.write_file(self.key, self.path)
            except Exception as exc:  # noqa: BLE001 - the run's own outcome matters more than its log's upload
                print(f"ocr-pipeline: the log stays at {self.path}: upload failed ({type(exc).__name__})")
