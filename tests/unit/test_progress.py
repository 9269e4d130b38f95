"""LoggingProgress, the step log's progress: soon, every few seconds, bounded however long a step runs.

A fake clock stands in for time.monotonic, so the schedule is checked to the second without sleeping.
"""

from __future__ import annotations

from ocr_pipeline.progress import LoggingProgress


class FakeClock:
    """Seconds that pass only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _progress() -> tuple[LoggingProgress, FakeClock, list[str]]:
    clock, lines = FakeClock(), list[str]()
    return LoggingProgress(lines.append, clock=clock), clock, lines


def _pages(progress: LoggingProgress, clock: FakeClock, pages: int, seconds_each: float) -> None:
    for _ in range(pages):
        clock.now += seconds_each
        progress.advance()


def test_the_first_line_comes_two_seconds_into_a_phase_then_every_few_seconds() -> None:
    progress, clock, lines = _progress()
    progress.phase("ocr g000001", 100)
    _pages(progress, clock, 3, 0.5)
    assert lines == []  # 1.5 s: nothing yet
    _pages(progress, clock, 1, 0.5)
    assert lines == ["ocr g000001: 4/100 pages (4%), 2.0 pages/s, ETA 48s"]
    _pages(progress, clock, 5, 0.5)  # 4.5 s: under 3 s since the last line
    assert len(lines) == 1
    _pages(progress, clock, 1, 0.5)  # 5 s
    assert lines[-1] == "ocr g000001: 10/100 pages (10%), 2.0 pages/s, ETA 45s"


def test_a_19_second_step_shows_lines_while_it_runs_and_a_closing_line() -> None:
    progress, clock, lines = _progress()
    progress.phase("ocr g000001", 38)
    _pages(progress, clock, 37, 0.5)
    assert 4 <= len(lines) <= 7 and all("pages/s" in line and "ETA" in line for line in lines)
    _pages(progress, clock, 1, 0.5)
    assert lines[-1] == "ocr g000001: done, 38/38 pages in 19s, 2.0 pages/s"
    _pages(progress, clock, 5, 0.5)  # pages past the expected total add nothing
    assert lines[-1].endswith("in 19s, 2.0 pages/s")


def test_a_very_long_step_stays_within_its_budget() -> None:
    progress, clock, lines = _progress()
    # A week, two phases of a million pages each, then a phase with no known total.
    progress.phase("render g000001", 1_000_000)
    _pages(progress, clock, 1_000_000, 0.3)
    progress.phase("ocr g000001", 1_000_000)
    _pages(progress, clock, 1_000_000, 0.3)
    progress.phase("ocr g000002", 0)
    _pages(progress, clock, 10_000, 1.0)
    progress.close()
    closing = [line for line in lines if ": done," in line]
    assert len(closing) == 3 and progress.lines == len(lines) - 3
    assert progress.lines <= 60
    # ...and the first phase alone, a steady 3.5 days, spreads its lines over its length (at most 30 + doublings).
    first = [line for line in lines if line.startswith("render")]
    assert 20 <= len(first) <= 30 + 18


def test_a_stalled_phase_with_no_known_total_still_reports_at_doubling_intervals() -> None:
    progress, clock, lines = _progress()
    progress.phase("ocr g000001", 0)
    for gap in [2.0, 1.0, 5.0, 10.0, 100.0]:
        clock.now += gap
        progress.advance()
    # Lines at 2 s (first), 8 s (doubled, 3 s after), 18 s (doubled); not at 3 s (too soon).
    assert lines == ["ocr g000001: 1 pages, 0.50 pages/s", "ocr g000001: 3 pages, 0.38 pages/s",
                     "ocr g000001: 4 pages, 0.22 pages/s", "ocr g000001: 5 pages, 0.04 pages/s"]  # fmt: skip


def test_eta_and_rate_read_right_at_every_scale() -> None:
    progress, clock, lines = _progress()
    progress.phase("ocr g000001", 10_000)
    _pages(progress, clock, 50, 0.1)  # 5 s, 10 pages/s
    assert lines[-1] == "ocr g000001: 50/10000 pages (0%), 10 pages/s, ETA 16m35s"
    progress.phase("ocr g000002", 100_000)
    _pages(progress, clock, 3, 1.0)  # 1 page/s: the first line at page 2, 2 s in
    assert lines[-2].startswith("ocr g000001: ended at 50/10000 pages in 5s")
    assert lines[-1] == "ocr g000002: 2/100000 pages (0%), 1.0 pages/s, ETA 27h46m"


def test_a_phase_that_ends_short_is_closed_by_the_next_phase_or_close() -> None:
    progress, clock, lines = _progress()
    progress.phase("render g000001", 10)
    _pages(progress, clock, 8, 0.1)
    assert lines == []
    progress.close()
    assert lines == ["render g000001: ended at 8/10 pages in 1s, 10 pages/s"]
    progress.close()
    progress.advance()  # no phase open: nothing
    assert len(lines) == 1
