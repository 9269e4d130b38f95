"""Headless Debian chromium for the browser tests: Playwright's own browser download is unreachable here, so
Playwright drives the system's /usr/bin/chromium through `executable_path` (CI installs it: .ci/run)."""

from __future__ import annotations

import os
import shutil
from typing import Any

import pytest

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]  # fmt: skip


def _missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI installs {what} (.ci/run); it is missing")
    pytest.skip(f"{what} is not installed")


def chromium_path() -> str:
    """Debian's chromium; skipped where it is missing, failed in CI (which installs it)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        _missing("Debian's chromium (apt-get install -y chromium)")
    assert found is not None
    return found


def sync_playwright() -> Any:
    """playwright.sync_api.sync_playwright (the dev extra's `playwright`, without its browser download)."""
    try:
        from playwright.sync_api import sync_playwright as start
    except ImportError:
        _missing("playwright (pip install -e '.[dev]')")
    return start()
