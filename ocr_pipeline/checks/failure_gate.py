"""When a partition's failing pages say the model is broken, not merely unlucky on a few hard pages.

A sound model fails a small share of pages it cannot read (olmOCR's own answers wrote a sentence twice on one of 38
real old scans, on every attempt); a broken model (a wrong model or prompt, a sampler that loops, a server that errors)
fails most of them. A flat share cannot tell the two apart on small groups: one bad page is 2.6 % of a 38-page group,
over any share a gate on 500 pages can afford. So a gate compares its count of failing pages with what a model that
fails `honest_share` of pages produces by chance (a binomial tail): it stops the partition only when the count is
less likely than `false_alarm` for such a model. One bad page never stops a group of more than one page, a looping
model stops every group of four pages or more, and the bound grows with the group as chance allows
(benchmarks/quality/bench_gate_sizes.py measures both sides on real pages).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class FailureGate:
    """How many failing pages a partition may hold before a gate calls its model broken.

    `honest_share`: the share of pages a sound model fails (hard pages, bad luck); `false_alarm`: the chance, for
    such a model, that a partition is stopped anyway. Without `false_alarm` (None) the gate is a flat share: more
    than `honest_share` of the pages fails it, as the gates did before groups were judged by their size.
    """

    honest_share: float
    false_alarm: float | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.honest_share <= 1.0:
            raise ValueError(f"the share must be between 0 and 1, not {self.honest_share}")
        if self.false_alarm is not None and not 0.0 < self.false_alarm < 1.0:
            raise ValueError(f"`false_alarm` must be between 0 and 1 (exclusive), not {self.false_alarm}")

    def allowed(self, pages: int) -> int:
        """The most failing pages of `pages` that still pass."""
        if pages <= 0:
            return 0
        if self.false_alarm is None:
            return math.floor(self.honest_share * pages + 1e-9)
        return chance_bound(pages, self.honest_share, self.false_alarm)

    def passes(self, failing: int, pages: int) -> bool:
        """Whether `failing` of `pages` is within what chance allows a sound model."""
        return failing <= self.allowed(pages)

    def explain(self, pages: int) -> str:
        """The bound in words, for a check's summary."""
        limit = self.allowed(pages)
        if self.false_alarm is None:
            return f"allowed at most {self.honest_share:.2%} ({limit} of {pages})"
        return (
            f"a model failing {self.honest_share:.1%} of pages fails more than {limit} of {pages} "
            f"less than once in {round(1 / self.false_alarm):,} groups"
        )


def chance_bound(pages: int, share: float, false_alarm: float) -> int:
    """The smallest k with P(X > k) < false_alarm for X ~ Binomial(pages, share): the most failures chance explains."""
    if share <= 0.0:
        return 0
    if share >= 1.0:
        return pages
    # The pmf summed upwards in log space: exact for any group size, no SciPy.
    log_p, log_q = math.log(share), math.log1p(-share)
    cumulative = 0.0
    for k in range(pages + 1):
        log_pmf = math.lgamma(pages + 1) - math.lgamma(k + 1) - math.lgamma(pages - k + 1) + k * log_p
        cumulative += math.exp(log_pmf + (pages - k) * log_q)
        if 1.0 - cumulative < false_alarm:
            return k
    return pages
