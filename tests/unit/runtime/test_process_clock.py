"""Process start times by pid, on real processes: /proc on Linux, `ps` as on macOS and the BSDs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ocr_pipeline.runtime.process_clock import parse_etime, proc_start_time, process_start_time, ps_start_time

LINUX = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
PS = pytest.mark.skipif(shutil.which("ps") is None, reason="needs ps")


def _sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])


def _zombie() -> subprocess.Popen[bytes]:
    """A child that exited and is not reaped yet."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    while subprocess.run(["ps", "-o", "stat=", "-p", str(child.pid)], capture_output=True, text=True).stdout[:1] != (
        "Z"
    ):
        assert time.monotonic() < deadline, "the child never exited"
        time.sleep(0.05)
    return child


def test_etime_reads_every_form_posix_allows() -> None:
    assert parse_etime("00:07") == 7
    assert parse_etime(" 12:34\n") == 12 * 60 + 34
    assert parse_etime("03:02:01") == 3 * 3600 + 2 * 60 + 1
    assert parse_etime("2-03:02:01") == 2 * 86400 + 3 * 3600 + 2 * 60 + 1
    with pytest.raises(ValueError):
        parse_etime("soon")


@LINUX
def test_a_new_process_started_just_now_and_this_one_before_it() -> None:
    before = time.time()
    child = _sleeper()
    try:
        started = process_start_time(child.pid)
        assert started is not None and before - 1.5 <= started <= time.time() + 1.5
        ours = process_start_time(os.getpid())
        assert ours is not None and ours <= started
    finally:
        child.kill()
        child.wait()


@LINUX
@PS
def test_ps_and_proc_agree_to_a_second_or_two() -> None:
    child = _sleeper()
    try:
        time.sleep(1.2)
        from_proc, from_ps = proc_start_time(child.pid), ps_start_time(child.pid)
        assert from_proc is not None and from_ps is not None
        assert abs(from_proc - from_ps) <= 2.0
    finally:
        child.kill()
        child.wait()


@PS
def test_an_exited_process_has_no_start_time_zombie_or_reaped() -> None:
    child = _zombie()
    assert process_start_time(child.pid) is None
    assert ps_start_time(child.pid) is None
    child.wait()
    assert process_start_time(child.pid) is None
    assert ps_start_time(child.pid) is None


def test_no_pid_is_no_process() -> None:
    assert process_start_time(0) is None
    assert process_start_time(-1) is None
