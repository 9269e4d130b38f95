"""Warm PDF-reader children kept between the sandboxes of one process.

A new child spends ~0.3 s starting Python and importing pdfium before its first answer, and a run opens a
sandbox per stage (inventory, filter, render): that was a second of start-up before the first page reached the
VLM server. A sandbox that closes with an idle, healthy child leaves it here for the next one; the CLI starts
one at launch, while it imports Dagster. A spare ends when this process does (its stdin closes).
"""

from __future__ import annotations

import atexit
import contextlib
import subprocess
import threading

from ocr_pipeline.pdf.sandbox.memory import child_env

# Enough for the stages of the groups one process runs at once; more would only hold memory.
MAX_SPARES = 2

_lock = threading.Lock()
_spares: list[tuple[tuple[str, ...], subprocess.Popen[bytes]]] = []


def start_child(command: list[str]) -> subprocess.Popen[bytes]:
    """A new reader child speaking the sandbox protocol on its stdin and stdout."""
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=child_env())


def take_spare(command: list[str]) -> subprocess.Popen[bytes] | None:
    """A live idle child started with `command`, or None."""
    with _lock:
        for index, (started_with, proc) in enumerate(_spares):
            if started_with == tuple(command) and proc.poll() is None:
                del _spares[index]
                return proc
    return None


def keep_spare(command: list[str], proc: subprocess.Popen[bytes]) -> bool:
    """Keep an idle child for the next sandbox; False when there is no room (the caller stops it)."""
    with _lock:
        _spares[:] = [(c, p) for c, p in _spares if p.poll() is None]
        if len(_spares) >= MAX_SPARES or proc.poll() is not None:
            return False
        _spares.append((tuple(command), proc))
        return True


def prestart(command: list[str]) -> None:
    """Start a spare now, so its imports overlap the caller's own start-up (no-op when one is waiting)."""
    with _lock:
        if any(started_with == tuple(command) and p.poll() is None for started_with, p in _spares):
            return
    proc = start_child(command)
    if not keep_spare(command, proc):
        stop(proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End a child: it leaves at end of input; one that does not is killed."""
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


@atexit.register
def _stop_spares() -> None:
    with _lock:
        spares, _spares[:] = list(_spares), []
    for _, proc in spares:
        stop(proc)
