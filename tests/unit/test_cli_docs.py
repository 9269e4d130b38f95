"""`ocr-pipeline run --help` and the README agree: the same flags in the synopsis, the same exit codes."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from ocr_pipeline.cli import build_parser
from ocr_pipeline.launch.preflight import EXIT_CODES

README = Path(__file__).resolve().parents[2] / "README.md"


def _run_parser() -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["run"]


def _section(title: str) -> str:
    text = README.read_text()
    start = text.index(f"## {title}\n")
    return text[start : text.index("\n## ", start + 1)]


def test_the_readme_synopsis_lists_every_run_flag() -> None:
    block = _section("Command line").split("```")[1]
    synopsis = block[: block.index("ocr-pipeline pending")]
    in_readme = set(re.findall(r"--([a-z_]+)", synopsis))
    flags = {a.dest for a in _run_parser()._actions if a.option_strings and a.dest != "help"}
    assert in_readme == flags, {"missing from README": flags - in_readme, "not a flag": in_readme - flags}
    assert {"quiet", "verbose", "server_ready_timeout"} <= in_readme


def test_exit_codes_are_in_help_and_readme() -> None:
    help_text = _run_parser().format_help()
    section = _section("Command line")
    for code, meaning in EXIT_CODES:
        assert f"  {code}  {meaning}" in help_text
        assert f"| {code} | {meaning} |" in section
