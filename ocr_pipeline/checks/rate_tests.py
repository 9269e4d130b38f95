"""The partition's page rates and languages: counted in SQL over vlm_ocr_outputs, judged by a failure gate."""

from __future__ import annotations

from typing import Any

from ocr_pipeline.checks import generic_sql as sql
from ocr_pipeline.checks.declared import TestSpec
from ocr_pipeline.checks.failure_gate import FailureGate
from ocr_pipeline.checks.generic_tests import failing_rows, found, judged_key
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.outcome import Implementation, Outcome
from ocr_pipeline.checks.sql_tables import PAGE_PREDICATES
from ocr_pipeline.checks.table_slots import ROW
from ocr_pipeline.records import UNREADABLE_PAGE_PREFIX

# Pages the PDF itself would not render are the input's failure, not the engine's: the shard stage rejects their
# document on its own, and the group's other documents must still ship.
ENGINE_PAGES = f"NOT starts_with(coalesce(error, ''), {sql.literal(UNREADABLE_PAGE_PREFIX)})"


def gate_of(spec: TestSpec) -> FailureGate:
    """The test's failure gate: its `max` share, judged by chance when it sets `false_alarm`."""
    return FailureGate(float(spec.params["max"]), spec.params.get("false_alarm"))


def gate_metadata(gate: FailureGate, pages: int) -> dict[str, Any]:
    """What a failure gate allowed, for the check's metadata."""
    extra = {} if gate.false_alarm is None else {"false_alarm": gate.false_alarm}
    return {"max": gate.honest_share, **extra, "allowed_pages": gate.allowed(pages)}


# Rate test -> (the page predicate it counts, whether only the pages the engine could read count).
_RATES = {"page_error_rate": ("error_pages", True), "fallback_rate": ("fallback_pages", False)}


def rate_counts(spec: TestSpec) -> dict[str, str] | None:
    """A rate test's page counts as aggregates over its asset's rows (None for the other tests), as scan_plan.py
    also asks them."""
    if spec.type not in _RATES:
        return None
    metric, engine_only = _RATES[spec.type]
    considered = ENGINE_PAGES if engine_only else "TRUE"
    hits = f"{considered} AND ({PAGE_PREDICATES[metric]})"
    return {"pages": f"count(*) FILTER (WHERE {considered})", "hits": f"count(*) FILTER (WHERE {hits})"}


def _rate(spec: TestSpec, data: PartitionData, what: str) -> Outcome:
    metric, engine_only = _RATES[spec.type]
    asset, asked = spec.asset, rate_counts(spec)
    assert asked is not None, spec.type
    counts = data.recall(judged_key(spec))
    if counts is None:
        columns = ", ".join(f"{aggregate} AS {name}" for name, aggregate in asked.items())
        [counts] = data.session(asset).all(f"SELECT {columns} FROM {sql.rows_of(asset)}")
    pages, hits = int(counts["pages"]), int(counts["hits"])
    sample: list[dict[str, Any]] = []
    if hits:  # the failing pages are read only when there are some (a query costs milliseconds)
        considered = ENGINE_PAGES if engine_only else "TRUE"
        query = (
            f"SELECT {sql.shown(asset, 'error')} FROM {sql.rows_of(asset)} "
            f"WHERE {considered} AND ({PAGE_PREDICATES[metric]}){sql.ordered(asset)}"
        )
        hits, sample = failing_rows(spec, data, query)
    rate = hits / pages if pages else 0.0
    gate = gate_of(spec)
    summary = f"{hits} of {pages} pages {what} ({rate:.2%}; {gate.explain(pages)})"
    metadata = {"pages": pages, metric: hits, "rate": round(rate, 6), **gate_metadata(gate, pages)}
    return Outcome(gate.passes(hits, pages), summary, {**metadata, "failing_rows": hits, "sample": sample})


def page_error_rate(spec: TestSpec, data: PartitionData) -> Outcome:
    """Pages the engine failed on that have no text at all (not even from the text layer), within the gate."""
    return _rate(spec, data, "failed with no text")


def fallback_rate(spec: TestSpec, data: PartitionData) -> Outcome:
    """Pages that fell back to their text layer, within the gate."""
    return _rate(spec, data, "fell back to the text layer")


def finding_query(spec: TestSpec) -> str | None:
    """The one-row query the language distribution starts from (scan_plan.py runs it with its asset's others): each
    language with its pages, the most common first, then in the order of their first page; None for the rest."""
    if spec.type != "language_distribution":
        return None
    language = "coalesce(nullif(CAST(primary_language AS VARCHAR), ''), 'none')"
    counts = f"SELECT {language} AS language, count(*) AS n, min({ROW}) AS first FROM {sql.rows_of(spec.asset)}"
    ordered = "list({'language': language, 'n': n} ORDER BY n DESC, first)"
    return f"SELECT {ordered} AS languages FROM ({counts} GROUP BY ALL)"


def language_distribution(spec: TestSpec, data: PartitionData) -> Outcome:
    """At least `min_share` of the pages are in one of the `expected` languages."""
    query = finding_query(spec)
    assert query is not None
    counts = {row["language"]: int(row["n"]) for row in found(spec, data, query)["languages"] or []}
    pages = sum(counts.values())
    expected = [str(v) for v in spec.params["expected"]]
    share = sum(counts.get(lang, 0) for lang in expected) / pages if pages else 1.0
    passed = share >= spec.params["min_share"]
    summary = f"{share:.1%} of {pages} pages in {expected} (at least {spec.params['min_share']:.0%} expected)"
    return Outcome(passed, summary, {"distribution": counts, "expected_share": round(share, 4)})


RATE_TESTS: dict[str, Implementation] = {
    "page_error_rate": page_error_rate,
    "fallback_rate": fallback_rate,
    "language_distribution": language_distribution,
}
