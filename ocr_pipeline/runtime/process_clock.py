"""When a process started, by pid: how the run launcher tells its run worker from a later process that reuses the pid.

A pid alone does not say the process is the same one: after a machine restart (or enough processes), another
process can hold it. A process that started after the pid was logged is not the one that logged it. Linux gives the
start time from /proc; other POSIX systems (macOS, the BSDs) from `ps -o etime=`; Windows from psutil (a dependency
of Dagster there). Where none of them answers, a pid that exists counts as the same process.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
from pathlib import Path

# A process that exists but whose start time is unknown: earlier than any logged time, so it counts as the same one.
UNKNOWN_START = 0.0


def process_start_time(pid: int) -> float | None:
    """When process `pid` started (epoch seconds), None when there is none (or only its zombie), UNKNOWN_START
    when it exists and the platform cannot say when it started."""
    if pid <= 0:
        return None
    if Path("/proc/self/stat").exists():
        return proc_start_time(pid)
    if sys.platform == "win32":
        return _psutil_start_time(pid)
    return ps_start_time(pid)


def proc_start_time(pid: int) -> float | None:
    """From /proc/<pid>/stat: field 22 (starttime, clock ticks after boot) plus /proc/stat's btime."""
    try:
        # The command name (field 2) may hold spaces and parentheses: fields are counted after its last ")".
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))  # fmt: skip
    except (OSError, IndexError, StopIteration, ValueError):
        return None
    if fields[0] in ("Z", "X"):  # exited, not yet reaped: no longer running anything
        return None
    return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")


def parse_etime(text: str) -> float:
    """Seconds in ps's elapsed time, `[[dd-]hh:]mm:ss` (POSIX)."""
    days, _, clock = text.strip().rpartition("-")
    seconds = 0.0
    for part in clock.split(":"):
        seconds = seconds * 60 + int(part)
    return seconds + int(days or 0) * 86400


def ps_start_time(pid: int) -> float | None:
    """From `ps -o etime= -p PID`: now less the elapsed time (to a second); None when ps lists no such process."""
    try:
        listed = subprocess.run(["ps", "-o", "stat=,etime=", "-p", str(pid)], capture_output=True, text=True,
                                timeout=10, env={**os.environ, "LC_ALL": "C"})  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return _exists(pid)
    fields = listed.stdout.split()
    if listed.returncode != 0 or len(fields) != 2:
        return None
    if fields[0].startswith("Z"):
        return None
    try:
        return time.time() - parse_etime(fields[1])
    except ValueError:
        return _exists(pid)


def _psutil_start_time(pid: int) -> float | None:
    """From psutil's create_time (Windows); UNKNOWN_START when psutil is missing and the pid exists."""
    try:
        psutil = importlib.import_module("psutil")
    except ImportError:
        return _exists(pid)
    try:
        return float(psutil.Process(pid).create_time())
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return None
    except psutil.Error:
        return UNKNOWN_START


def _exists(pid: int) -> float | None:
    """UNKNOWN_START when a process `pid` exists (signal 0 only asks; never on Windows, where it would kill)."""
    if sys.platform == "win32":
        return UNKNOWN_START
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return UNKNOWN_START
    return UNKNOWN_START
