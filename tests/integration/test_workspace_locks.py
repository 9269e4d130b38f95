"""Workspace locks and exclusive creates: on disk across real processes, and on the real SeaweedFS server."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ocr_pipeline.workspace.locks import LockTimeoutError, S3Lease
from ocr_pipeline.workspace.s3 import S3Workspace
from ocr_pipeline.workspace.storage import LocalWorkspace
from tests.support.s3_server import SeaweedS3

HOLDER = """
import sys, time
from ocr_pipeline.workspace.storage import LocalWorkspace
with LocalWorkspace(sys.argv[1]).lock("inventory"):
    print("held", flush=True)
    time.sleep(600)
"""


def test_local_lock_excludes_other_processes_and_dies_with_its_holder(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path / "ws")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "ws")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(LockTimeoutError), ws.lock("inventory", timeout_s=0.5):
            pass
    finally:
        holder.kill()  # SIGKILL: no cleanup runs, the kernel drops the flock
        holder.wait()
    with ws.lock("inventory", timeout_s=30):
        assert ws.create_exclusive("inventory/groups/g000001.parquet", b"one")
        assert not ws.create_exclusive("inventory/groups/g000001.parquet", b"two")
    assert ws.read_bytes("inventory/groups/g000001.parquet") == b"one"


@pytest.fixture(scope="module")
def s3() -> Iterator[SeaweedS3]:
    server = SeaweedS3().start()
    try:
        yield server
    finally:
        server.stop()


def test_s3_conditional_puts_and_a_stale_lease_taken_over_once(s3: SeaweedS3) -> None:
    client = s3.client()
    client.create_bucket(Bucket="locks-ws")
    ws = S3Workspace("s3://locks-ws/run", client)
    # The server honours If-None-Match: * (checked, not assumed): the second create is refused.
    assert ws.create_exclusive("inventory/groups/g000001.parquet", b"one")
    assert not ws.create_exclusive("inventory/groups/g000001.parquet", b"two")
    assert ws.read_bytes("inventory/groups/g000001.parquet") == b"one"
    with ws.lock("inventory", timeout_s=5), pytest.raises(LockTimeoutError), ws.lock("inventory", timeout_s=1):
        pass
    # A holder that died: its lease expired long ago. Two waiters race for it; If-Match lets only one in.
    stale = json.dumps({"owner": "dead:1", "expires": time.time() - 10}).encode()
    client.put_object(Bucket="locks-ws", Key="run/locks/inventory.json", Body=stale)
    first = S3Lease(client, "locks-ws", "run/locks/inventory.json")
    second = S3Lease(client, "locks-ws", "run/locks/inventory.json")
    first.acquire(timeout_s=5)
    with pytest.raises(LockTimeoutError):
        second.acquire(timeout_s=1)
    first.release()
    second.acquire(timeout_s=5)
    second.release()
    assert not ws.exists("locks/inventory.json")
