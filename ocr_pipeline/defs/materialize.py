"""The code location's jobs run in this process: what `ocr-pipeline run` drives, one work group at a time."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from dagster import AssetSelection, DagsterEventType, DagsterInstance, Definitions, EventLogEntry

from ocr_pipeline.defs.assets import ALL_ASSETS, dolma_shards, filtered_pdfs, render_and_ocr
from ocr_pipeline.defs.checks import build_asset_checks
from ocr_pipeline.defs.definitions import build_definitions
from ocr_pipeline.defs.gate_stops import GateStop, gate_stops
from ocr_pipeline.defs.jobs import inventory_job, ocr_job
from ocr_pipeline.defs.partitions import WORK_GROUPS
from ocr_pipeline.defs.render_ocr import PAGE_IMAGES
from ocr_pipeline.defs.resources import pipeline_resources
from ocr_pipeline.progress import ProgressSink
from ocr_pipeline.settings import PipelineSettings

# Assets plus their data tests, for tests that materialize a selection; GROUP_ASSETS are one partition's assets.
ASSETS_AND_CHECKS = [*ALL_ASSETS, *build_asset_checks()]
GROUP_ASSETS = AssetSelection.assets(filtered_pdfs, render_and_ocr, dolma_shards)
# Dagster's own step logs would drown the progress bar; warnings and errors still show.
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def new_instance() -> DagsterInstance:
    """A throwaway instance for one CLI run: the workspace, not Dagster's storage, records what is done."""
    return DagsterInstance.ephemeral()


def run_resources(settings: PipelineSettings, progress: ProgressSink | None = None) -> dict[str, Any]:
    """Every resource the assets need, for these settings (the CLI, tests)."""
    return pipeline_resources(settings, progress)


def _definitions(settings: PipelineSettings, progress: ProgressSink | None = None) -> Definitions:
    return build_definitions(run_resources(settings, progress), with_automation=False)


def run_inventory(settings: PipelineSettings, instance: DagsterInstance) -> list[str]:
    """Run inventory_job (scan, form groups, register them); returns every registered group."""
    job = _definitions(settings).resolve_job_def(inventory_job.name)
    job.execute_in_process(instance=instance, run_config=QUIET, raise_on_error=True)
    return list(instance.get_dynamic_partitions(WORK_GROUPS))


def run_group(
    settings: PipelineSettings,
    group: str,
    instance: DagsterInstance | None = None,
    progress: ProgressSink | None = None,
) -> bool:
    """Run ocr_job for one work group (its assets and their checks); returns whether every step succeeded."""
    return run_group_outcome(settings, group, instance, progress).cause is None


@dataclass(frozen=True)
class GroupOutcome:
    """How one group's run ended: `cause` is None on success, else one line; `trace` holds the full errors."""

    cause: str | None
    trace: str = ""
    # Stopped by a signal (Ctrl-C, SIGTERM) rather than failed: the caller stops too, instead of going on.
    interrupted: bool = False
    # The blocking checks that stopped the group, with their failing pages (what a person looks at first).
    gates: tuple[GateStop, ...] = ()


def run_group_outcome(
    settings: PipelineSettings,
    group: str,
    instance: DagsterInstance | None = None,
    progress: ProgressSink | None = None,
    *,
    console_level: str = "WARNING",
    stream_pages: bool = True,
    on_rendered: Callable[[], None] | None = None,
) -> GroupOutcome:
    """Run ocr_job for one group; on failure, the cause in one line and every error's trace (for a log file).

    `stream_pages`: the render_and_ocr op's config; `on_rendered` is called when the run reports page_images
    materialized (its pages rendered, their last answers still to come).
    """
    if instance is None:
        # Disposed here, in the thread that made it: the garbage collector would close its SQLite connections
        # from another thread, which SQLite refuses (with a traceback on the console).
        with new_instance() as own:
            return run_group_outcome(
                settings, group, own, progress, console_level=console_level, stream_pages=stream_pages,
                on_rendered=on_rendered,
            )  # fmt: skip
    if not instance.has_dynamic_partition(WORK_GROUPS, group):
        instance.add_dynamic_partitions(WORK_GROUPS, [group])
    job = _definitions(settings, progress).resolve_job_def(ocr_job.name)
    config = {
        "loggers": {"console": {"config": {"log_level": console_level}}},
        "ops": {"render_and_ocr": {"config": {"stream_pages": stream_pages}}},
    }
    run_id = str(uuid.uuid4())  # known before the run starts, so the listener is in place for its first event
    if on_rendered is not None:
        instance.add_event_listener(run_id, _when_materialized(PAGE_IMAGES.to_user_string(), on_rendered))
    result = job.execute_in_process(
        instance=instance, partition_key=group, run_config=config, raise_on_error=False, run_id=run_id
    )
    if result.success:
        return GroupOutcome(None)
    # The instance's log, not result.all_events: only it has Pipes' event carrying the worker's own exception.
    events = [entry.dagster_event for entry in instance.all_logs(result.run_id) if entry.dagster_event]
    errors = [e for e in (getattr(ev.event_specific_data, "error", None) for ev in events) if e]
    trace = "\n".join(error.to_string() for error in errors)
    interrupted = any(name in _INTERRUPTS for error in errors for name in _class_names(error))
    gates = tuple(gate_stops(instance.all_logs(result.run_id)))
    if gates:
        cause = "stopped by a blocking check: " + "; ".join(f"{g.check}: {g.summary}" for g in gates)
    else:
        cause = plain_cause(errors) if errors else "a step failed (no error recorded)"
    return GroupOutcome(cause, trace, interrupted, gates)


# What Dagster records for a run a signal stopped (its handler raises the first; KeyboardInterrupt where none is set).
_INTERRUPTS = frozenset({"DagsterExecutionInterruptedError", "KeyboardInterrupt"})


def _class_names(error: Any) -> Iterator[str]:
    """The exception class names of an error info and of its chain of causes."""
    while error is not None:
        yield error.cls_name or ""
        error = error.cause


def _when_materialized(asset: str, call: Callable[[], None]) -> Callable[[EventLogEntry], None]:
    """An instance event listener calling `call` when the run reports `asset` materialized."""

    def listen(entry: EventLogEntry) -> None:
        event = entry.dagster_event
        if event is None or event.event_type != DagsterEventType.ASSET_MATERIALIZATION:
            return
        if event.asset_key is not None and event.asset_key.to_user_string() == asset:
            call()

    return listen


def plain_cause(errors: list[Any]) -> str:
    """One line from Dagster's error infos: the first innermost exception that is not Dagster's own, in words."""
    innermost = []
    for error in errors:
        while error.cause is not None:
            error = error.cause
        innermost.append(error)
    inner = next((e for e in innermost if not (e.cls_name or "").startswith("Dagster")), innermost[0])
    name = inner.cls_name or "Error"
    message = (inner.message or "").strip().splitlines()[0] if (inner.message or "").strip() else ""
    message = message.removeprefix(f"{name}: ").removeprefix(f"{inner.cls_name}: ")
    if name in ("ServerNotReadyError", "ServerNotOpenAIError"):
        return "VLM server unreachable: " + message.removeprefix("VLM server at ")
    if name == "ServerUnavailableError":
        return "VLM server unavailable: " + message
    return f"{name}: {message}"[:300]
