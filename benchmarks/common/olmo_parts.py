"""The fixed tuning and check parts of each olmocr-bench-history set, and pass counts per part and test type.

The rule: a PDF is in the **check** part when the first byte of
`sha256("olmo-history-parts-v1:" + file name)` (UTF-8, the file name with its `.pdf`, no folder) is odd, else in the
**tuning** part. Rules are written from the tuning part and judged on the check part. The salt is new so the check
part is not the old `holdout` half (`sha256(file name)`, first byte odd), which was looked at while debugging; that
split stays for old commands (`--split dev|holdout`). All of this data was read while the rules so far were written,
so the check part is clean only for changes made from now on.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

PARTS_SALT = "olmo-history-parts-v1:"
PARTS = ("tuning", "check")
SPLITS = ("all", "tuning", "check", "dev", "holdout")


def part_of(name: str) -> str:
    """'check' or 'tuning' for a PDF's file name, by the salted hash in the module docstring."""
    return "check" if hashlib.sha256((PARTS_SALT + name).encode()).digest()[0] % 2 == 1 else "tuning"


def in_split(name: str, split: str) -> bool:
    """Whether a PDF belongs to `split`: 'all', a part ('tuning', 'check') or an old half ('dev', 'holdout')."""
    if split == "all":
        return True
    if split in PARTS:
        return part_of(name) == split
    odd = hashlib.sha256(name.encode()).digest()[0] % 2 == 1
    return odd if split == "holdout" else not odd


def set_tests(bench: Path) -> dict[str, tuple[str, str]]:
    """Each test id of OUT/<set>/tests.jsonl with its PDF's file name and its type."""
    lines = [json.loads(x) for x in (bench / "tests.jsonl").read_text().splitlines() if x.strip()]
    return {t["id"]: (t["pdf"], t["type"]) for t in lines}


def counts(results: dict[str, bool], tests: dict[str, tuple[str, str]], pdfs: set[str]) -> dict[str, list[int]]:
    """[passed, total] per test type over the scored tests of the given PDFs (unloadable and skipped tests left out)."""
    out: dict[str, list[int]] = {}
    for test_id, passed in results.items():
        pdf, kind = tests[test_id]
        if pdf in pdfs:
            cell = out.setdefault(kind, [0, 0])
            cell[0] += bool(passed)
            cell[1] += 1
    return out


def with_all_types(by_type: dict[str, list[int]]) -> dict[str, list[int]]:
    """The per-type counts plus an 'all' row when there is more than one type."""
    if len(by_type) < 2:
        return dict(by_type)
    return {**by_type, "all": [sum(v[0] for v in by_type.values()), sum(v[1] for v in by_type.values())]}


def cell(passed_total: list[int] | None) -> str:
    """'p/t = rate' for a table cell, '-' where there are no tests."""
    if not passed_total or not passed_total[1]:
        return "-"
    return f"{passed_total[0]}/{passed_total[1]} = {passed_total[0] / passed_total[1]:.2f}"
