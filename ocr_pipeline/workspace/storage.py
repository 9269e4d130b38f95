"""Workspace storage: deterministic keys under a local folder, or S3 behind the same interface (client passed in)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from ocr_pipeline.workspace.locks import DEFAULT_LOCK_TIMEOUT_S, local_lock
from ocr_pipeline.workspace.s3 import S3Workspace, require_client
from ocr_pipeline.workspace.safepaths import check_key


def _file_mode() -> int:
    """The mode a plain `open()` would give a new file under this process's umask (mkstemp's is 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


FILE_MODE = _file_mode()


class Workspace(Protocol):
    """Where every stage reads and writes, by relative key (`dolma/g000001.jsonl.gz`)."""

    uri: str

    def write_bytes(self, key: str, data: bytes) -> None:
        """Write atomically: a reader sees the old object or the whole new one, never a part."""

    def read_bytes(self, key: str) -> bytes:
        """Read a whole object; FileNotFoundError when missing."""

    def exists(self, key: str) -> bool:
        """Whether the key holds an object."""

    def list(self, prefix: str) -> Iterator[str]:
        """Keys under `prefix` (a folder-like prefix ending in `/` or a key prefix), sorted."""

    def delete(self, key: str) -> None:
        """Remove a key if present."""

    def local_path(self, key: str) -> Path | None:
        """A local file path for the key when the workspace is on local disk, else None."""

    def write_file(self, key: str, path: Path) -> None:
        """Publish a local file under the key atomically (large objects without loading them whole)."""

    def download(self, key: str, path: Path) -> None:
        """Copy the object to a local file; FileNotFoundError when missing."""

    def create_exclusive(self, key: str, data: bytes) -> bool:
        """Write the whole object only if the key is free; False when it already exists (never overwrites)."""

    def lock(self, name: str, timeout_s: float = DEFAULT_LOCK_TIMEOUT_S) -> AbstractContextManager[Any]:
        """Hold the workspace-wide lock `name` across processes and machines; a dead holder's lock is recovered."""


class LocalWorkspace:
    """A workspace in a local folder; writes go to a temporary file then rename into place."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self.uri = str(self.root)

    def _path(self, key: str) -> Path:
        path = (self.root / check_key(key)).resolve()
        if self.root not in path.parents:
            raise ValueError(f"key escapes the workspace: {key!r}")
        return path

    def write_bytes(self, key: str, data: bytes) -> None:
        """Write atomically via a temporary file in the same folder and os.replace."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._staged(path, data)
        try:
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def _staged(self, path: Path, data: bytes) -> Path:
        """The bytes in a temporary file beside `path`, flushed to disk and with the umask's mode."""
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
        try:
            os.fchmod(fd, FILE_MODE)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                # Durable before it is published: a rename of unflushed data can surface empty after a power cut.
                os.fsync(handle.fileno())
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return Path(tmp)

    def create_exclusive(self, key: str, data: bytes) -> bool:
        """Stage the bytes, then hard-link them into place: link(2) fails if the name exists, atomically."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._staged(path, data)
        try:
            os.link(tmp, path)
            return True
        except FileExistsError:
            return False
        finally:
            tmp.unlink(missing_ok=True)

    def lock(self, name: str, timeout_s: float = DEFAULT_LOCK_TIMEOUT_S) -> AbstractContextManager[Any]:
        """An exclusive flock on `locks/<name>.lock` (released by the kernel if the holder dies)."""
        return local_lock(self._path(f"locks/{name}.lock"), timeout_s)

    def read_bytes(self, key: str) -> bytes:
        """Read a whole file."""
        return self._path(key).read_bytes()

    def write_file(self, key: str, path: Path) -> None:
        """Copy a local file in under a temporary name, then rename it into place."""
        target = self._path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
        os.close(fd)
        try:
            os.chmod(tmp, FILE_MODE)
            shutil.copyfile(path, tmp)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def download(self, key: str, path: Path) -> None:
        """Copy the file out."""
        shutil.copyfile(self._path(key), path)

    def exists(self, key: str) -> bool:
        """Whether the file exists."""
        return self._path(key).is_file()

    def list(self, prefix: str) -> Iterator[str]:
        """Files under the prefix, as sorted keys; temporary `.part` files are skipped."""
        base = self.root / prefix if prefix.endswith("/") else (self.root / prefix).parent
        if not base.is_dir():
            return iter(())
        keys = []
        for path in base.rglob("*"):
            if path.is_file() and not path.name.endswith(".part"):
                key = path.relative_to(self.root).as_posix()
                if key.startswith(prefix):
                    keys.append(key)
        return iter(sorted(keys))

    def delete(self, key: str) -> None:
        """Remove the file if present."""
        self._path(key).unlink(missing_ok=True)

    def local_path(self, key: str) -> Path | None:
        """The file's path on disk."""
        return self._path(key)


def open_workspace(uri: str, s3_client: Any | None) -> Workspace:
    """The workspace for a local folder (`s3_client` None), or an `s3://bucket/prefix` read with `s3_client`."""
    if uri.startswith("s3://"):
        return S3Workspace(uri, require_client(uri, s3_client, "workspace"))
    return LocalWorkspace(uri)
