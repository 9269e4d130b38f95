"""A declared test (from YAML or a singular `.sql` file), the suite of them, and the error a bad declaration raises."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


class ChecksConfigError(ValueError):
    """A dbt_like_checks file that cannot be used; the message starts with `file:line:`."""


@dataclass(frozen=True)
class TestSpec:
    """One declared test of one asset."""

    asset: str
    type: str
    name: str
    params: dict[str, Any]
    severity: str = "error"
    blocking: bool = False
    description: str = ""
    file: str = ""
    line: int = 0

    @property
    def where(self) -> str:
        """`file:line` of the declaration, for messages and check metadata."""
        return f"{self.file}:{self.line}"

    def fail(self, message: str, line: int | None = None) -> ChecksConfigError:
        """A load error at this test's declaration (or at `line` of its file)."""
        return ChecksConfigError(f"{self.file}:{line or self.line}: {message}")


@dataclass
class Suite:
    """Every test of every file, grouped by asset."""

    tests: dict[str, list[TestSpec]] = field(default_factory=dict)

    def add(self, spec: TestSpec) -> None:
        """Add a test; a second test of the same name on the same asset is an error."""
        for other in self.tests.setdefault(spec.asset, []):
            if other.name == spec.name:
                raise ChecksConfigError(
                    f"{spec.where}: test name {spec.name!r} on {spec.asset} is already used at {other.where}; "
                    "give one of them a `name:`"
                )
        self.tests[spec.asset].append(spec)


def check_name(text: str) -> str:
    """A Dagster-safe check name (letters, digits, underscores)."""
    return re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_") or "test"


# Only the per-work-group assets take tests: a check must share its asset's partitions.
CHECKED_ASSETS = ("filtered_pdfs", "page_images", "vlm_ocr_outputs", "dolma_shards")
