"""olmOCR-Bench's present / absent / order / table / baseline semantics, re-implemented (no olmocr dependency).

The canary and `ocr-pipeline eval` score with these; benchmarks/common/olmo_score.py falls back on them where
`olmocr[bench]` cannot be imported. They agree with olmocr 0.4.27's classes on every test of the generated bench.
Only the standard library and rapidfuzz: any interpreter can run this file. Math tests need a browser to render
KaTeX and are not scored here (SUPPORTED_TYPES).
"""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz import fuzz

from ocr_pipeline.canary.olmo_tables import html_grids, table_grids

__all__ = ["SUPPORTED_TYPES", "end_repeats", "html_grids", "normalize", "run_test"]

_QUOTES = {"‘": "'", "’": "'", "‚": "'", "“": '"', "”": '"', "„": '"', "–": "-", "—": "-", "−": "-", "\u00b5": "\u03bc"}


def normalize(text: str) -> str:
    """olmocr's normalize_text: <br>, whitespace, bold/italic marks, NFC, fancy quotes and dashes."""
    text = re.sub(r"<br/?>", " ", text)
    text = re.sub(r"\s+", " ", text)
    for pat in (r"\*\*(.*?)\*\*", r"__(.*?)__", r"\*(.*?)\*", r"_(.*?)_"):
        text = re.sub(pat, r"\1", text)
    text = re.sub(r"</?[bi]>", "", text)
    text = unicodedata.normalize("NFC", text)
    for a, b in _QUOTES.items():
        text = text.replace(a, b)
    return text


SUPPORTED_TYPES = ("present", "absent", "order", "table", "baseline")
# olmOCR's baseline test: an answer that ends with one 1-5 character unit repeated more than this often is a loop.
MAX_END_REPEATS = 30
# Scripts olmOCR's baseline test refuses in an answer (CJK, kana, emoji): on its English-centred pages, a sign of
# a model that has lost the page.
_DISALLOWED = re.compile(
    "[\u4e00-\u9fff\u3040-\u30ff\U0001f600-\U0001f64f\U0001f300-\U0001f5ff\U0001f680-\U0001f6ff\U0001f1e0-\U0001f1ff]"
)


def near_match_starts(pattern: str, text: str, max_diffs: int) -> list[int]:
    """Start offsets in `text` of substrings within `max_diffs` edits of `pattern` (fuzzysearch's near matches).

    Sellers' algorithm: an edit-distance table whose first row is free, so a match may start anywhere; each cell
    carries the start of the alignment it continues.
    """
    if not pattern:
        return []
    if max_diffs <= 0:
        starts, at = [], text.find(pattern)
        while at >= 0:
            starts.append(at)
            at = text.find(pattern, at + 1)
        return starts
    m = len(pattern)
    prev_cost, prev_start = list(range(m + 1)), [0] * (m + 1)  # the column before the text's first character
    found = []
    for end in range(1, len(text) + 1):
        char = text[end - 1]
        cost, start = [0] * (m + 1), [end] * (m + 1)
        for i in range(1, m + 1):
            best, begins = prev_cost[i - 1] + (pattern[i - 1] != char), prev_start[i - 1]
            if cost[i - 1] + 1 < best:  # a pattern character missing from the text
                best, begins = cost[i - 1] + 1, start[i - 1]
            if prev_cost[i] + 1 < best:  # a text character not in the pattern
                best, begins = prev_cost[i] + 1, prev_start[i]
            cost[i], start[i] = best, begins
        if cost[m] <= max_diffs:
            found.append(start[m])
        prev_cost, prev_start = cost, start
    return found


def end_repeats(text: str, longest: int = 5) -> int:
    """How often the text's last unit of 1..`longest` characters repeats back to back at its end (the most)."""
    text = re.sub(r"\s+", " ", text)
    best = 0
    for size in range(1, min(longest, len(text)) + 1):
        unit, count, pos = text[-size:], 0, len(text) - size
        while pos >= 0 and text[pos : pos + size] == unit:
            count, pos = count + 1, pos - size
        best = max(best, count)
    return best


def _baseline(test: dict, md: str) -> bool:
    """olmOCR's BaselineTest: some alphanumeric text, no loop at the end, no refused script; or, for a page
    expected blank (`max_length`), at most that many alphanumeric characters."""
    if test.get("max_length") is not None:
        body = re.sub(r"!\[.*?\]\(.*?\)", "", md) if test.get("max_length_skips_image_alt_tags") else md
        return sum(c.isalnum() for c in body) <= int(test["max_length"])
    if not any(c.isalnum() for c in md):
        return False
    if end_repeats(md) > int(test.get("max_repeats", MAX_END_REPEATS)):
        return False
    return not (test.get("check_disallowed_characters", True) and _DISALLOWED.search(md))


def run_test(test: dict, md: str) -> bool:
    """Whether the Markdown `md` passes one olmOCR-Bench test (a JSONL line as a dict).

    ValueError for a type not scored here (math) and for a line olmOCR itself refuses to load.
    """
    kind, diffs = test["type"], test.get("max_diffs", 0)
    content = normalize(md)
    if kind in ("present", "absent"):
        query = normalize(test["text"])
        if not query.strip():
            raise ValueError("olmOCR refuses a present or absent test with empty text")
        if test.get("case_sensitive") is False:
            query, content = query.lower(), content.lower()
        first, last = test.get("first_n"), test.get("last_n")
        if first or last:  # olmOCR looks only at the answer's start and/or end
            content = (content[:first] if first else "") + (content[-last:] if last else "")
        ratio = fuzz.partial_ratio(query, content) / 100
        hit = ratio >= 1 - diffs / max(len(query), 1)
        return hit if kind == "present" else not hit
    if kind == "order":
        before, after = normalize(test["before"]), normalize(test["after"])
        if not before.strip() or not after.strip() or diffs > len(before) // 2 or diffs > len(after) // 2:
            raise ValueError("olmOCR refuses an order test with an empty side or max_diffs over half of one")
        befores = near_match_starts(before, content, diffs)
        afters = near_match_starts(after, content, diffs)
        # olmOCR passes when any match of `before` starts before any match of `after`.
        return bool(befores and afters) and min(befores) < max(afters)
    if kind == "table":

        def ok(want: str, got: str) -> bool:
            return fuzz.ratio(want, normalize(got)) / 100 >= max(0.5, 1 - diffs / max(len(want), 1))

        for grid in table_grids(md):
            for r, row in enumerate(grid):
                for c, value in enumerate(row):
                    if not ok(test["cell"], value):
                        continue
                    checks = [
                        not test.get("up") or r == 0 or ok(test["up"], grid[r - 1][c]),
                        not test.get("down") or r == len(grid) - 1 or ok(test["down"], grid[r + 1][c]),
                        not test.get("left") or c == 0 or ok(test["left"], grid[r][c - 1]),
                        not test.get("right") or c == len(row) - 1 or ok(test["right"], grid[r][c + 1]),
                        not test.get("top_heading") or ok(test["top_heading"], grid[0][c]),
                        not test.get("left_heading") or ok(test["left_heading"], grid[r][0]),
                    ]
                    if all(checks):
                        return True
        return False
    if kind == "baseline":
        return _baseline(test, md)
    raise ValueError(f"test type {kind!r} is not scored here (only {', '.join(SUPPORTED_TYPES)})")
