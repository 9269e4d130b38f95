"""How many failing pages a sound model and a broken one produce per group size, and which gates stop them.

    .venv/bin/python -m benchmarks.quality.bench_gate_sizes [--draws 300] [--max 0.02 0.03] [--false-alarm 0.001]

Every real page of ../shared/data with an answer (benchmarks/common/guard_pages.py: pdf-parse-bench's ground truth, the
born-digital sets' text layers, olmOCR's own answers to the old scans, the canary's references) plus near-blank
scans the tests build, rendered as the VLM path renders them, is read by the real VLM engine against the test
server (loopback HTTP) once per model:

- `sound`: each page's own answer (olmOCR's answer to old scan 92 writes its last sentence twice on every attempt);
- `wrong`: another page's answer (a wrong model or prompt: fluent text about something else);
- `looping`: the page's answer, then its last line written 60 times (a loop the model itself stopped);
- `inventing`: a page of invented prose for every page.

Each page's outcome is what the pipeline records (engine result, then `quality.page_signals`): an error page (no
text after every attempt failed), a model failure (`failed_answer`: what the degenerate-share gates count), and its
agreement with a trusted text layer. Groups of 10, 100 and 500 pages are then drawn from the pages (with
replacement, a fixed seed), mixed or old scans only (the hardest pages a sound model meets), and each gate is
judged on them: the flat shares shipped before (1 % errors, 5 % degenerate) and the chance rule
(checks/failure_gate.py) for each `--max`, beside the median-agreement gate (0.6 over 3+ trusted pages).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from benchmarks.common.guard_pages import real_pages
from benchmarks.common.tools import scratch
from ocr_pipeline.checks.failure_gate import FailureGate
from ocr_pipeline.engines.vlm import VlmEngine
from ocr_pipeline.pdf.page_rows import PLAIN, document_pages
from ocr_pipeline.quality import PageFacts, page_signals
from ocr_pipeline.quality.degenerate import failed_answer
from ocr_pipeline.quality.print_ink import page_ink
from ocr_pipeline.records import PageInput, PageResult
from tests.support.builders import near_blank
from tests.support.vlm_answers import INVENTED_PAGE, line_loop
from tests.support.vlm_protocol import bytes_key
from tests.support.vlm_server import VlmTestServer

MODES = ("sound", "wrong", "looping", "inventing")
SIZES = (10, 100, 500)
AGREEMENT_MIN, AGREEMENT_PAGES = 0.6, 3


@dataclass(frozen=True)
class Page:
    """One page as the VLM engine gets it, with the facts its signals need and its sound answer."""

    name: str
    scan: bool
    input: PageInput
    facts: PageFacts
    answer: str


@dataclass(frozen=True)
class Outcome:
    """What the pipeline records of one page read by one model."""

    error: bool
    failed: bool
    agreement: float | None


def pages() -> Iterator[Page]:
    """Every real page with an answer, rendered as the VLM path renders it, then the built near-blank scans."""
    for real in real_pages():
        if real.needs_ocr or real.source == "human":  # old scans are answered by olmOCR (a real model) instead
            continue
        (row,) = document_pages("pdf", str(real.pdf), 1288, text=PLAIN, pages=[real.index + 1])
        yield _page(real.name, row, real.answer)
    blanks = {"bleed-through": near_blank.bleed_through(120, 1.5), "specks": near_blank.specks(40),
              "stamp": near_blank.stamp()}  # fmt: skip
    for name, image in blanks.items():
        path = scratch(f"near-blank-{name}.pdf")
        path.write_bytes(near_blank.scan_pdf(image))
        (row,) = document_pages("pdf", str(path), 1288, text=PLAIN)
        yield _page(f"near-blank/{name}", row, "")


def _page(name: str, row: dict, answer: str) -> Page:
    layer = row["text_layer"] or ""
    ink = None if layer.strip() or not row["png"] else page_ink(row["png"])
    facts = PageFacts(row["width"], row["height"], layer if row["text_layer_trusted"] else "",
                      ink.ink_pixels if ink else None, ink.capacity if ink else None)  # fmt: skip
    return Page(name, not layer.strip(), PageInput.from_row(row, source_hash=name), facts, answer)


def answers(mode: str, all_pages: list[Page]) -> dict[str, str]:
    """The server's answer for each page image under one model."""
    out = {}
    for i, page in enumerate(all_pages):
        if mode == "sound":
            text = page.answer
        elif mode == "wrong":
            text = all_pages[(i + 7) % len(all_pages)].answer
        elif mode == "looping":
            text = line_loop(page.answer) if page.answer.strip() else "\n".join(["Page 1."] * 60)
        else:
            text = INVENTED_PAGE
        assert page.input.png is not None
        out[bytes_key(page.input.png)] = text
    return out


def read_all(mode: str, all_pages: list[Page]) -> list[Outcome]:
    """Every page through the real VLM engine against a test server answering as the model `mode` does."""
    results: dict[str, PageResult] = {}
    with VlmTestServer(text_for=answers(mode, all_pages), key_by_histogram=False, canary_right=False) as server:
        engine = VlmEngine(server.url, "olmocr", max_concurrent_requests=16)

        async def run() -> None:
            async with engine:
                factories = [lambda p=p: p.input for p in all_pages]
                await engine.run_pages(factories, lambda r: results.__setitem__(r.source_hash, r))

        asyncio.run(run())
    out = []
    for page in all_pages:
        result = results[page.input.source_hash]
        signals = page_signals(result, page.facts)
        out.append(Outcome(bool(result.error) and not (result.text or "").strip(), bool(failed_answer(signals)),
                           signals.get("text_layer_agreement")))  # fmt: skip
    return out


def blocked(group: list[Outcome], gates: dict[str, Callable[[list[Outcome]], bool]]) -> dict[str, bool]:
    """Which gates stop one group."""
    return {name: gate(group) for name, gate in gates.items()}


def gate_set(shares: list[float], false_alarm: float) -> dict[str, Callable[[list[Outcome]], bool]]:
    """The gates judged: the flat shares shipped before, the chance rule per share, and the agreement median."""

    def counted(rule: FailureGate, field: str) -> Callable[[list[Outcome]], bool]:
        return lambda g: not rule.passes(sum(getattr(o, field) for o in g), len(g))

    def agreement(g: list[Outcome]) -> bool:
        scored = [o.agreement for o in g if o.agreement is not None]
        return len(scored) >= AGREEMENT_PAGES and statistics.median(scored) < AGREEMENT_MIN

    gates = {"errors 1%": counted(FailureGate(0.01), "error"), "degenerate 5%": counted(FailureGate(0.05), "failed")}
    for share in shares:
        gates[f"errors ~{share:g}"] = counted(FailureGate(share, false_alarm), "error")
        gates[f"degenerate ~{share:g}"] = counted(FailureGate(share, false_alarm), "failed")
    gates["agreement"] = agreement
    return gates


def main() -> None:
    """Read every page under each model, then print failing pages and blocked shares per group size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=300, help="groups drawn per size")
    parser.add_argument("--max", type=float, nargs="+", default=[0.02, 0.03], help="honest shares to judge")
    parser.add_argument("--false-alarm", type=float, default=0.001)
    args = parser.parse_args()
    all_pages = list(pages())
    outcomes = {mode: read_all(mode, all_pages) for mode in MODES}
    scans = [i for i, p in enumerate(all_pages) if p.scan and not p.name.startswith(("near-blank", "canary"))]
    print(f"{len(all_pages)} pages ({len(scans)} real scans); per model, pages with an error / a model failure / "
          "agreement median:")  # fmt: skip
    for mode, found in outcomes.items():
        agree = [o.agreement for o in found if o.agreement is not None]
        print(f"  {mode}: {sum(o.error for o in found)} / {sum(o.failed for o in found)} / "
              f"{statistics.median(agree):.2f} over {len(agree)} trusted")  # fmt: skip
        named = [all_pages[i].name for i, o in enumerate(found) if o.failed]
        if mode == "sound":
            print(f"    failing: {named}")
    gates = gate_set(args.max, args.false_alarm)
    rng = random.Random(20261205)
    print("\n| group | model | pages | errors (median, min-max) | failures (median, min-max) | "
          + " | ".join(gates) + " |")  # fmt: skip
    print("|---|---|---:|---|---|" + "---:|" * len(gates))
    for label, pool in (("mixed", list(range(len(all_pages)))), ("old scans", scans)):
        for mode in MODES:
            for size in SIZES:
                groups = [[outcomes[mode][rng.choice(pool)] for _ in range(size)] for _ in range(args.draws)]
                errors = sorted(sum(o.error for o in g) for g in groups)
                failed = sorted(sum(o.failed for o in g) for g in groups)
                shares = {name: sum(blocked(g, {name: gate})[name] for g in groups) / len(groups)
                          for name, gate in gates.items()}  # fmt: skip
                print(f"| {label} | {mode} | {size} | {statistics.median(errors):g} ({errors[0]}-{errors[-1]}) "
                      f"| {statistics.median(failed):g} ({failed[0]}-{failed[-1]}) | "
                      + " | ".join(f"{v:.0%}" for v in shares.values()) + " |")  # fmt: skip
    print("\nChance bounds (most failing pages that pass): "
          + "; ".join(f"max {s:g}: " + ", ".join(f"{n}: {FailureGate(s, args.false_alarm).allowed(n)}"
                                                for n in (1, 2, 10, 40, 100, 500)) for s in args.max))  # fmt: skip


if __name__ == "__main__":
    main()
