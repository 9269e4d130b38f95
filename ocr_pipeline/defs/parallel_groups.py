"""The two ways `ocr-pipeline run` runs several groups at once: spawned worker processes, or overlapped runs.

Worker processes suit the CPU engine (rendering and OCR hold the GIL); overlapped runs in threads suit a VLM server,
whose next group's pages are sent while the last answers of the one before come back. Either way a signal (Ctrl-C,
`kill PID`) stops every group in flight and the queued ones, as it stops a run of one group at a time.
"""

from __future__ import annotations

import multiprocessing
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed

from tqdm import tqdm

from ocr_pipeline.defs.materialize import GroupOutcome, run_group_outcome
from ocr_pipeline.progress import TqdmProgress
from ocr_pipeline.runtime.stop_signals import pool_worker_signals
from ocr_pipeline.settings import PipelineSettings

# Takes each group's outcome as it ends (local_run's RunSummary.record: it raises KeyboardInterrupt if interrupted).
Record = Callable[[str, GroupOutcome], None]


def _run_group_in_child(settings: PipelineSettings, group: str, level: str, stream: bool) -> tuple[str, GroupOutcome]:
    try:
        return group, run_group_outcome(settings, group, console_level=level, stream_pages=stream)
    finally:
        pool_worker_signals()


def run_in_processes(
    settings: PipelineSettings, pending: list[str], level: str, stream: bool, show_progress: bool, record: Record
) -> None:
    """Run the groups in `workers` spawned processes; a signal stops the queued groups and the running ones too."""
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(settings.workers, mp_context=context, initializer=pool_worker_signals)
    futures = [pool.submit(_run_group_in_child, settings, g, level, stream) for g in pending]
    try:
        with tqdm(total=len(pending), unit="group", desc="groups", disable=not show_progress) as bar:
            for future in as_completed(futures):
                group, outcome = future.result()
                bar.update(1)
                record(group, outcome)
    except KeyboardInterrupt:
        # The pool would go on with the queued groups until all are done: its own thread drops them (a future
        # cancelled here breaks that thread once a worker ends), and the running ones stop as Ctrl-C stops a run
        # (no done marker written; the rerun does those groups again).
        pool.shutdown(wait=False, cancel_futures=True)
        _stop_workers()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _stop_workers(grace_s: float = 60.0) -> None:
    """SIGTERM each worker until none is left: a run stops on it, an idle worker ends; SIGKILL after `grace_s`."""
    # Again and again: a worker whose run stopped may already hold the next group (the pool hands each one out
    # ahead), and a signal Dagster notes outside a step's code only ends that run at its end.
    deadline = time.monotonic() + grace_s
    while children := multiprocessing.active_children():
        late = time.monotonic() > deadline
        for child in children:
            if late:
                child.kill()
            else:
                child.terminate()
        for child in children:
            child.join(0.5)


def run_overlapped(
    settings: PipelineSettings, pending: list[str], level: str, show_progress: bool, record: Record
) -> None:
    """Run the groups' jobs in threads of this process, the next one starting as soon as a running one reports
    page_images materialized (its render_and_ocr op yields that when rendering ends): the VLM server gets the next
    group's pages while the last answers of the previous group come back, so it never drains at a group boundary.

    At most `workers` groups render at once and `workers + 2` runs are open: the others are waiting for their
    last answers, and with small groups one such group alone does not keep the server full. Their queued pages
    share one byte budget (page_stream.PROCESS_QUEUE_BUDGET), so memory does not grow with the open runs.
    Threads suffice here: pages render in each group's sandbox child and OCR runs on the server, so this
    process only moves bytes. Each run gets its own Dagster instance (instances are not shared across threads).
    """
    rendering = threading.Semaphore(settings.workers)
    open_runs = threading.Semaphore(settings.workers + 2)
    outcomes: queue.Queue[tuple[str, GroupOutcome | BaseException]] = queue.Queue()

    def run_one(group: str, progress: TqdmProgress, release_render: Callable[[], None]) -> None:
        try:
            outcomes.put((group, run_group_outcome(settings, group, None, progress, on_rendered=release_render,
                                                   console_level=level)))  # fmt: skip
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which raises it
            outcomes.put((group, exc))
        finally:
            progress.close()
            release_render()  # a run that failed before rendering ended frees its slot here
            open_runs.release()

    threads = []
    for index, group in enumerate(pending, 1):
        _acquire(open_runs)
        _acquire(rendering)
        release_render = _once(rendering.release)
        progress = TqdmProgress(f"[{index}/{len(pending)}] ", disable=not show_progress)
        thread = threading.Thread(
            target=run_one, args=(group, progress, release_render), name=f"group-{group}", daemon=True
        )
        thread.start()
        threads.append(thread)
    for thread in threads:
        while thread.is_alive():
            thread.join(0.5)  # short waits: Ctrl-C reaches the main thread at once
    while not outcomes.empty():
        group, outcome = outcomes.get()
        if isinstance(outcome, BaseException):
            raise outcome
        record(group, outcome)


def _acquire(semaphore: threading.Semaphore) -> None:
    while not semaphore.acquire(timeout=0.5):  # short waits: Ctrl-C reaches the main thread at once
        pass


def _once(release: Callable[[], None]) -> Callable[[], None]:
    """`release`, callable any number of times but acting once (page_images' event and the run's end call it)."""
    first = threading.Lock()  # taken by the first call, never given back

    def call() -> None:
        if first.acquire(blocking=False):
            release()

    return call
