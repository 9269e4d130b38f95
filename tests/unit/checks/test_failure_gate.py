"""The chance rule of the partition gates: one hard page never stops a group, a broken model always does."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest

from ocr_pipeline.checks.failure_gate import FailureGate, chance_bound
from ocr_pipeline.checks.spec import ChecksConfigError
from tests.unit.checks.test_quality_gates import page, run

SHIPPED = FailureGate(0.03, 0.001)


def _tail(n: int, p: Fraction, k: int) -> Fraction:
    """P(X > k) for X ~ Binomial(n, p), summed exactly."""
    return sum((math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1, n + 1)), Fraction(0))


@pytest.mark.parametrize("pages", [1, 2, 3, 10, 38, 40, 92, 100, 500])
def test_the_bound_is_the_smallest_count_chance_explains(pages: int) -> None:
    k, share, alarm = chance_bound(pages, 0.03, 0.001), Fraction(3, 100), Fraction(1, 1000)
    assert _tail(pages, share, k) < alarm
    assert k == 0 or _tail(pages, share, k - 1) >= alarm


def test_one_failed_page_never_stops_a_group_and_a_broken_model_always_does() -> None:
    for pages in range(1, 2001):
        assert SHIPPED.passes(1, pages)
    # A model failing every page (a loop, a dead server) is stopped from a group of two pages up; one failing
    # nine pages in ten from four up.
    assert all(not SHIPPED.passes(pages, pages) for pages in range(2, 2001))
    assert all(not SHIPPED.passes(math.ceil(0.9 * pages), pages) for pages in range(4, 2001))
    assert [SHIPPED.allowed(n) for n in (10, 40, 100, 500)] == [3, 6, 9, 28]


def test_without_false_alarm_the_gate_is_the_flat_share() -> None:
    flat = FailureGate(0.05)
    assert flat.allowed(100) == 5 and flat.passes(5, 100) and not flat.passes(6, 100)
    assert flat.allowed(0) == 0 and "at most 5.00%" in flat.explain(100)


def test_bad_parameters_are_refused() -> None:
    for share, alarm in [(-0.1, None), (1.5, None), (0.03, 0.0), (0.03, 1.0)]:
        with pytest.raises(ValueError):
            FailureGate(share, alarm)


def test_yaml_gates_take_false_alarm_and_check_it_at_load(tmp_path: Path) -> None:
    tests = "- degenerate_page_share: {name: block, max: 0.03, false_alarm: 0.001, blocking: true}\n"
    one_bad = [page(n, {"degenerate": n == 7}) for n in range(1, 39)]  # 1 of 38: olmOCR's own answers
    got = run(tmp_path, one_bad, tests)["block"]
    assert got.passed and got.metadata["allowed_pages"] == 5 and got.metadata["false_alarm"] == 0.001
    assert "1 of 38 pages degenerate" in got.summary and "less than once in 1,000 groups" in got.summary
    looping = [page(n, {"degenerate": n > 3}) for n in range(1, 11)]
    assert not run(tmp_path, looping, tests)["block"].passed
    for bad, message in [("false_alarm: 2", "`false_alarm` must be between 0 and 1"),
                         ("false_alarm: yes", "`false_alarm` must be a number")]:  # fmt: skip
        with pytest.raises(ChecksConfigError, match=message):
            run(tmp_path, [], f"- degenerate_page_share: {{max: 0.03, {bad}}}\n")
