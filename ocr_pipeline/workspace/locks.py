"""Workspace-wide locks: `flock` on local disk, a leased object written with conditional puts on S3.

Both recover from a holder that died: the kernel drops a dead process's `flock`, and an S3 lease whose
holder stopped renewing it expires and is taken over with `If-Match` on the stale version, so exactly one
waiter wins it.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# Long enough for any critical section's pause (a GC, a slow request); the holder renews it at a third of this.
LEASE_TTL_S = 300.0
DEFAULT_LOCK_TIMEOUT_S = 900.0
_POLL_S = 0.2


class LockTimeoutError(TimeoutError):
    """Another process held the lock for longer than the caller was willing to wait."""


class LockLostError(RuntimeError):
    """An S3 lease expired and was taken over while its holder still worked (the holder must not commit)."""


@contextmanager
def local_lock(path: Path, timeout_s: float = DEFAULT_LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold an exclusive `flock` on `path`; the kernel releases it if this process dies."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeoutError(f"{path} held by another process for {timeout_s:g}s") from None
                time.sleep(_POLL_S)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def is_precondition_failure(exc: BaseException) -> bool:
    response = getattr(exc, "response", None) or {}
    code = str(response.get("Error", {}).get("Code", ""))
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return code in {"PreconditionFailed", "ConditionalRequestConflict", "412", "409"} or status in (409, 412)


class S3Lease:
    """One lease object under `key`: created with `If-None-Match: *`, renewed and taken over with `If-Match`."""

    def __init__(self, client: Any, bucket: str, key: str, ttl_s: float = LEASE_TTL_S) -> None:
        self.client, self.bucket, self.key, self.ttl_s = client, bucket, key, ttl_s
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.etag: str | None = None
        self.lost = False
        self._stop = threading.Event()

    def _body(self) -> bytes:
        # Wall-clock expiry: machines sharing a workspace are assumed NTP-synchronised well within the TTL.
        return json.dumps({"owner": self.owner, "expires": time.time() + self.ttl_s}).encode()

    def _put(self, **condition: str) -> bool:
        try:
            reply = self.client.put_object(Bucket=self.bucket, Key=self.key, Body=self._body(), **condition)
        except Exception as exc:
            if is_precondition_failure(exc):
                return False
            raise
        self.etag = reply["ETag"]
        return True

    def _try_take_stale(self) -> bool:
        try:
            current = self.client.get_object(Bucket=self.bucket, Key=self.key)
        except Exception as exc:
            if "NoSuchKey" in str(exc) or "404" in str(exc):
                return False  # released meanwhile: the next If-None-Match attempt gets it
            raise
        held = json.loads(current["Body"].read() or b"{}")
        if float(held.get("expires", 0)) > time.time():
            return False
        # Only one waiter's If-Match on this exact stale version can succeed.
        return self._put(IfMatch=current["ETag"])

    def acquire(self, timeout_s: float) -> None:
        """Wait until the lease is ours (or raise LockTimeoutError), then renew it in the background."""
        deadline = time.monotonic() + timeout_s
        while not (self._put(IfNoneMatch="*") or self._try_take_stale()):
            if time.monotonic() >= deadline:
                raise LockTimeoutError(f"s3://{self.bucket}/{self.key} held by another process for {timeout_s:g}s")
            time.sleep(_POLL_S * 2)
        threading.Thread(target=self._renew, name=f"lease-{self.key}", daemon=True).start()

    def _renew(self) -> None:
        while not self._stop.wait(self.ttl_s / 3):
            if not self._put(IfMatch=self.etag or ""):
                self.lost = True
                return

    def check(self) -> None:
        """Raise LockLostError if the lease was taken over (a write now could race the new holder)."""
        if self.lost:
            raise LockLostError(f"lease s3://{self.bucket}/{self.key} was lost")

    def release(self) -> None:
        """Stop renewing and delete the lease object, unless someone else holds it by now."""
        self._stop.set()
        if self.lost:
            return
        try:
            self.client.delete_object(Bucket=self.bucket, Key=self.key, IfMatch=self.etag)
        except Exception as exc:  # noqa: BLE001 - S3 servers refuse a conditional delete in their own ways: sorted below
            if not is_precondition_failure(exc) and "NoSuchKey" not in str(exc):
                # A server without conditional deletes: the lease is still ours (renewals succeed), delete it.
                self.client.delete_object(Bucket=self.bucket, Key=self.key)


@contextmanager
def s3_lock(client: Any, bucket: str, key: str, timeout_s: float = DEFAULT_LOCK_TIMEOUT_S) -> Iterator[S3Lease]:
    """Hold the lease object `key` for the duration of the block."""
    lease = S3Lease(client, bucket, key)
    lease.acquire(timeout_s)
    try:
        yield lease
    finally:
        lease.release()
