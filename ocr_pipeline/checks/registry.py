"""Every test type by name, and the one function that runs a test on a partition."""

from __future__ import annotations

from ocr_pipeline.checks.domain_tests import DOMAIN_TESTS
from ocr_pipeline.checks.expressions import ExpressionError
from ocr_pipeline.checks.generic_tests import GENERIC_TESTS, Implementation, Outcome
from ocr_pipeline.checks.loaders import MissingOutput, PartitionData
from ocr_pipeline.checks.spec import TestSpec
from ocr_pipeline.workspace.s3 import is_unavailable


def implementations() -> dict[str, Implementation]:
    """Test type -> function: the generic tests and the domain tests."""
    return {**GENERIC_TESTS, **DOMAIN_TESTS}


class WorkspaceUnavailable(RuntimeError):
    """The workspace could not be read (an S3 outage): no verdict on the data, the step fails and is retried."""


def evaluate(spec: TestSpec, data: PartitionData) -> Outcome:
    """Run one test; a missing output or a broken expression is a failed test that says why, not a crash.

    A workspace that cannot be read is not the data's fault: WorkspaceUnavailable, never a failed test (a blocking
    one would hold the partition back, green, until a person looked; raised, the run fails and is retried).
    """
    try:
        outcome = implementations()[spec.type](spec, data)
    except (MissingOutput, ExpressionError) as exc:
        outcome = Outcome(False, str(exc), {"error": str(exc)})
    except Exception as exc:  # a broken test must show on its check, not hide the others (an outage excepted)
        if is_unavailable(exc):
            where = f"{data.workspace.uri} ({data.group})"
            raise WorkspaceUnavailable(f"{where} could not be read for the test {spec.name}: {exc}") from exc
        outcome = Outcome(False, f"the test raised {type(exc).__name__}: {exc}", {"error": repr(exc)})
    outcome.metadata.setdefault("declared_in", spec.where)
    return outcome
