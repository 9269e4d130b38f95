"""Run an engine on a test set's pages and score its answers: the canary's and `ocr-pipeline eval`'s one routine.

Pages are rendered in the PDF sandbox as the pipeline renders them (same size, same text layer), so the engine
sees what a partition would send it. A page the engine fell back on scores as an empty answer: the text layer
is not the engine's reading, and a server that fails every page must fail the canary, not pass on the layers.
A page whose answers the engine judged degenerate to the end (a loop, a paragraph written twice, text the page's
print cannot hold, ...: it fell back, or kept no answer) is also counted as a model failure: a model that does it
on every blank page scores well on the tests (an empty page passes a blank-page test) but must not pass.
"""

from __future__ import annotations

import functools
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ocr_pipeline.canary.bench_set import BenchPage, BenchSet
from ocr_pipeline.canary.olmo_tests import SUPPORTED_TYPES, run_test
from ocr_pipeline.engines.base import OcrEngine, PageFactory, page_runner
from ocr_pipeline.pdf.sandbox.parent import PdfSandbox, SandboxAborted, time_limit
from ocr_pipeline.records import TEXT_ROUTE, PageInput, PageResult
from ocr_pipeline.routing.router import PageRouter


@dataclass
class EvalResult:
    """One engine's score on one test set: per test type, the failures, and what the pages cost."""

    by_type: dict[str, list[int]] = field(default_factory=dict)  # type -> [passed, total]; "(skipped)" unscored
    failures: list[str] = field(default_factory=list)
    pages: int = 0
    fallback_pages: int = 0
    # Page name -> the last reason the engine gave for judging its answers degenerate (it kept none of them).
    model_failures: dict[str, str] = field(default_factory=dict)
    unreadable_pages: list[str] = field(default_factory=list)
    seconds: float = 0.0
    answers: dict[str, str] = field(default_factory=dict)  # page name -> the engine's Markdown ("" on fallback)

    @property
    def passed(self) -> int:
        """Tests passed, over the scored types."""
        return sum(v[0] for k, v in self.by_type.items() if not k.endswith("(skipped)"))

    @property
    def scored(self) -> int:
        """Tests scored (math and unknown types are not)."""
        return sum(v[1] for k, v in self.by_type.items() if not k.endswith("(skipped)"))

    @property
    def model_failure_share(self) -> float:
        """Pages whose every answer was degenerate, over the pages read."""
        return len(self.model_failures) / self.pages if self.pages else 0.0

    @property
    def pass_rate(self) -> float:
        """Passed over scored; 0 when nothing could be scored."""
        return self.passed / self.scored if self.scored else 0.0

    def table_rows(self) -> list[dict[str, Any]]:
        """One row per test type: passed, total, rate (for the CLI table and the Dagster metadata table)."""
        return [
            {"type": kind, "passed": p, "total": t, "rate": round(p / t, 3) if t else 0.0}
            for kind, (p, t) in sorted(self.by_type.items())
        ]


def _same(page_input: PageInput) -> PageInput:
    return page_input


@dataclass
class RoutedPage(PageInput):
    """A page `route auto` read from its text layer: its result, made without the engine."""

    result: PageResult = field(default_factory=lambda: PageResult("", 0, ""))


# Small sets (the canary's) keep their rendered pages for the process: a sensor's canary run, an eval and the
# test server's oracle in one process render the same 32 pages once. Keyed by the set's digest (its tests and PDF
# bytes) and the image size, so a changed set or size renders again; large user sets are never held.
MAX_CACHED_PAGES = 64
_rendered: dict[tuple[str, str, int], tuple[dict[BenchPage, PageInput], list[str]]] = {}


def render_pages(
    bench: BenchSet, target_dim: int, router: PageRouter | None = None
) -> tuple[dict[BenchPage, PageInput], list[str]]:
    """Every page the tests name, rendered in the sandbox; and the names of pages that could not be rendered. With a
    `router` (`route auto`), the pages it reads from their text layer come as their routed results instead."""
    if router is not None:
        return _render(bench, target_dim, router)
    key = (bench.digest, str(bench.tests_file.resolve()), target_dim)
    if key not in _rendered:
        found = _render(bench, target_dim)
        if len(bench.pages) > MAX_CACHED_PAGES:
            return found
        _rendered[key] = found
    inputs, missing = _rendered[key]
    return dict(inputs), list(missing)


def _render(
    bench: BenchSet, target_dim: int, router: PageRouter | None = None
) -> tuple[dict[BenchPage, PageInput], list[str]]:
    wanted: dict[str, set[int]] = defaultdict(set)
    for page in bench.pages:
        wanted[str(page.path)].add(page.page)
    by_key = {(str(p.path), p.page): p for p in bench.pages}
    inputs: dict[BenchPage, PageInput] = {}
    with PdfSandbox() as sandbox:
        for path, numbers in wanted.items():
            try:
                text = TEXT_ROUTE if router is not None else None
                for row in sandbox.render("pdf", path, target_dim, time_limit(max(numbers)), text=text):
                    found = by_key.get((path, int(row["page_num"])))
                    if found is not None and row.get("png"):
                        inputs[found] = PageInput.from_row(row, found.pdf)
                        decision = router.decision(row) if router is not None else None
                        if router is not None and decision is not None and decision.routed:
                            routed = router.routed_result({**row, "sha256": found.pdf}, decision)
                            inputs[found] = RoutedPage(found.pdf, routed.page_num, None, result=routed)
                    if row["page_num"] >= max(numbers):
                        break
            except SandboxAborted:
                pass  # its pages are missing below: scored as empty answers, named as unreadable
    missing = [p.name for p in bench.pages if p not in inputs]
    return inputs, missing


def _degenerate_to_the_end(answer: PageResult) -> str | None:
    """The engine's last reason for a page it kept no answer of (fell back on, or withheld), if degenerate."""
    reasons = answer.extra.get("retried_for")
    if not (answer.is_fallback or answer.extra.get("withheld")) or not isinstance(reasons, list) or not reasons:
        return None
    return str(reasons[-1])


def evaluate(
    bench: BenchSet,
    engine: OcrEngine,
    target_dim: int,
    progress: Callable[[int, int], None] | None = None,
    router: PageRouter | None = None,
) -> EvalResult:
    """The engine's answers to every page of the set, scored with olmOCR-Bench's semantics; with a `router`, the
    pages `route auto` reads from their text layer are answered so, as a routed run answers them."""
    started = time.monotonic()
    inputs, unreadable = render_pages(bench, target_dim, router)
    answers: dict[tuple[str, int], PageResult] = {}

    def keep(result: PageResult) -> None:
        answers[(result.source_hash, result.page_num)] = result
        if progress is not None:
            progress(len(answers), len(inputs))

    for routed in inputs.values():  # read from its text layer (`route auto`): never sent to the engine
        if isinstance(routed, RoutedPage):
            keep(routed.result)
    to_engine = [page_input for page_input in inputs.values() if not isinstance(page_input, RoutedPage)]
    factories: list[PageFactory] = [functools.partial(_same, page_input) for page_input in to_engine]
    page_runner(engine)(factories, keep)
    result = EvalResult(pages=len(inputs), unreadable_pages=unreadable)
    for page in bench.pages:
        answer = answers.get((page.pdf, page.page))
        if answer is not None and answer.is_fallback:
            result.fallback_pages += 1
        if answer is not None and (why := _degenerate_to_the_end(answer)):
            result.model_failures[page.name] = why
        result.answers[page.name] = answer.text if answer is not None and not answer.is_fallback else ""
    names = {(p.pdf, p.page): p.name for p in bench.pages}
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for test in bench.tests:
        kind = str(test["type"])
        if kind not in SUPPORTED_TYPES:
            by_type[f"{kind} (skipped)"][1] += 1
            continue
        try:
            passed = run_test(test, result.answers[names[(str(test["pdf"]), int(test["page"]))]])
        except (KeyError, TypeError, ValueError):  # a line lacking its type's fields: olmocr refuses it too
            by_type[f"{kind} (not loadable, skipped)"][1] += 1
            continue
        by_type[kind][0] += passed
        by_type[kind][1] += 1
        if not passed:
            result.failures.append(str(test["id"]))
    result.by_type = dict(by_type)
    result.seconds = time.monotonic() - started
    return result
