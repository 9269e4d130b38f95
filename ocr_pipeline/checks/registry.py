"""Every test type by name, and the one function that runs a test on a partition."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ocr_pipeline.checks.declared import TestSpec
from ocr_pipeline.checks.domain_tests import DOMAIN_TESTS
from ocr_pipeline.checks.generic_tests import GENERIC_TESTS
from ocr_pipeline.checks.loaders import MissingOutput, PartitionData
from ocr_pipeline.checks.outcome import Implementation, Outcome
from ocr_pipeline.checks.rate_tests import RATE_TESTS
from ocr_pipeline.checks.scan_plan import prefetch
from ocr_pipeline.checks.sql_session import QueryError
from ocr_pipeline.workspace.s3 import is_unavailable


def implementations() -> dict[str, Implementation]:
    """Test type -> function: the generic tests, the rate tests and the domain tests."""
    return {**GENERIC_TESTS, **RATE_TESTS, **DOMAIN_TESTS}


class WorkspaceUnavailable(RuntimeError):
    """The workspace could not be read (an S3 outage): no verdict on the data, the step fails and is retried."""


def evaluate(spec: TestSpec, data: PartitionData) -> Outcome:
    """Run one test; a missing output or a query that cannot run is a failed test that says why, not a crash.

    A workspace that cannot be read is not the data's fault: WorkspaceUnavailable, never a failed test (a blocking
    one would hold the partition back, green, until a person looked; raised, the run fails and is retried).
    """
    try:
        outcome = implementations()[spec.type](spec, data)
    except (MissingOutput, QueryError) as exc:
        outcome = Outcome(False, str(exc), {"error": str(exc)})
    except Exception as exc:  # a broken test must show on its check, not hide the others (an outage excepted)
        if is_unavailable(exc):
            where = f"{data.workspace.uri} ({data.group})"
            raise WorkspaceUnavailable(f"{where} could not be read for the test {spec.name}: {exc}") from exc
        outcome = Outcome(False, f"the test raised {type(exc).__name__}: {exc}", {"error": repr(exc)})
    outcome.metadata.setdefault("declared_in", spec.where)
    return outcome


def evaluate_all(tests: Iterable[TestSpec], data: PartitionData) -> Iterator[tuple[TestSpec, Outcome]]:
    """Run tests on one partition, in order, each asset's SQL tests judged in one statement first (scan_plan.py)."""
    tests = list(tests)
    prefetch(tests, data)
    for test in tests:
        yield test, evaluate(test, data)
