"""The canary's verdict in the workspace: one JSON marker per engine, model, server and test set.

The sensor decides "may partitions run" from this marker alone, so it is written last and atomically, by the
`model_canary` asset and by `ocr-pipeline eval`. Its key is a fingerprint of everything that shapes the answers
(engine, its version, model, server, the test set, the threshold): change any and no marker matches, so the
canary is owed again; a verdict never outlives the configuration it judged.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ocr_pipeline.workspace.storage import Workspace

CANARY_PREFIX = "canary/"
# The share of the canary's pages whose every answer the engine may judge degenerate (a loop, a paragraph written
# twice, invented text, another language): a right model has none on these pages; one in twenty is bad luck, more is
# a model that does it systematically (every near-blank page invented: 4 of 32), however well the rest scores.
MAX_MODEL_FAILURE_SHARE = 0.05


def public_server(server: str | None) -> str:
    """The server URL without user:password@ (a URL can carry credentials; markers and logs must not)."""
    if not server:
        return ""
    parts = urlsplit(server)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def canary_fingerprint(
    engine: str, version: str, model: str, server: str | None, set_digest: str, min_rate: float
) -> str:
    """A short digest naming one configuration the canary judges."""
    payload = {
        "engine": engine,
        "version": version,
        "model": model,
        "server": public_server(server),
        "set": set_digest,
        "min_pass_rate": min_rate,
        "max_model_failure_share": MAX_MODEL_FAILURE_SHARE,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class CanaryVerdict:
    """What one canary run found for one fingerprint."""

    fingerprint: str
    passed: bool
    pass_rate: float
    min_pass_rate: float
    engine: str
    model: str
    server: str
    tests: int
    pages: int
    fallback_pages: int
    seconds: float
    finished_at: str
    run_id: str = ""
    by_type: dict[str, list[int]] | None = None
    model_failure_pages: int = 0  # pages whose every answer was degenerate (absent from markers before it)

    def summary(self, subject: str = "model canary") -> str:
        """One line: `subject`, verdict, rate against threshold, degenerate pages, and what was judged."""
        word = "passed" if self.passed else "FAILED"
        target = f"model {self.model!r} at {self.server}" if self.server else f"the {self.engine} engine"
        failures = ""
        if self.model_failure_pages:
            allowed = int(MAX_MODEL_FAILURE_SHARE * self.pages)
            failures = f", {self.model_failure_pages} pages with only degenerate answers (at most {allowed})"
        return (
            f"{subject} {word} for {target}: {self.pass_rate:.1%} of {self.tests} tests "
            f"(needs {self.min_pass_rate:.0%}){failures}, {self.pages} pages in {self.seconds:.0f} s"
        )


def canary_key(fingerprint: str) -> str:
    """The workspace key of a fingerprint's marker."""
    return f"{CANARY_PREFIX}{fingerprint}.json"


def write_verdict(workspace: Workspace, verdict: CanaryVerdict) -> None:
    """Publish the verdict atomically (a reader sees the old marker or this one, never a part)."""
    workspace.write_bytes(canary_key(verdict.fingerprint), json.dumps(asdict(verdict), sort_keys=True).encode())


def read_verdict(workspace: Workspace, fingerprint: str) -> CanaryVerdict | None:
    """The fingerprint's verdict, None when the canary never finished for it (or its marker is unreadable)."""
    key = canary_key(fingerprint)
    if not workspace.exists(key):
        return None
    try:
        data: dict[str, Any] = json.loads(workspace.read_bytes(key))
        return CanaryVerdict(**data)
    except (ValueError, TypeError):  # a marker of another version, or damaged: the canary is owed again
        return None


def now_iso() -> str:
    """The current UTC time as ISO 8601 (the marker's finished_at)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
