"""The shipped checks find what they found before the engine changed: pass/fail, counts and failing rows, on the
samples' group and on copies of it with one failure of each kind (tests/support/check_outcomes.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.check_outcomes import DAMAGES, RECORD, all_outcomes, samples_workspace


def _comparable(key: str, value: object) -> object:
    """A sample's rows as a set: checks list them in source-path order, and the samples' path (a placeholder in the
    record) sorts differently against a foreign path on each checkout."""
    if key == "sample" and isinstance(value, list):
        return sorted(json.dumps(row, sort_keys=True) for row in value)
    return value


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The samples' run, once for both ways of running the checks."""
    return samples_workspace(tmp_path_factory.mktemp("samples"))


@pytest.mark.parametrize("together", [True, False], ids=["one_scan_per_table", "one_query_per_test"])
def test_shipped_check_outcomes_are_unchanged(samples: Path, together: bool) -> None:
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    found = all_outcomes(samples, together)
    assert set(found) == set(recorded) == {"samples", *DAMAGES}
    differences = []
    for group, checks in recorded.items():
        assert set(found[group]) == set(checks), group
        for check, before in checks.items():
            # Every recorded value is found again; the engine may add metadata (the failing rows as a table).
            after = found[group][check]
            differences += [
                f"{group} {check} {k}: {v!r} -> {after.get(k)!r}"
                for k, v in before.items()
                if _comparable(k, after.get(k)) != _comparable(k, v)
            ]
    assert differences == []
    # Every shipped check fails in at least one damaged group: each kind of failure is covered.
    failing = {
        check
        for group, checks in recorded.items()
        if group != "samples"
        for check, o in checks.items()
        if not o["passed"]
    }
    assert failing == set(recorded["samples"])
    assert all(o["passed"] for o in recorded["samples"].values())
