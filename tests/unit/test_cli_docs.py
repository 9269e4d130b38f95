"""`ocr-pipeline run --help` and docs/cli.md agree: the same flags in the synopsis, the same exit codes."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from ocr_pipeline.cli import build_parser
from ocr_pipeline.launch.preflight import EXIT_CODES

CLI_DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def _run_parser() -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["run"]


def _section(title: str) -> str:
    text = CLI_DOC.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def test_the_cli_doc_synopsis_lists_every_run_flag() -> None:
    block = _section("Synopsis").split("```")[1]
    synopsis = block[: block.index("ocr-pipeline pending")]
    in_doc = set(re.findall(r"--([a-z_]+)", synopsis))
    flags = {a.dest for a in _run_parser()._actions if a.option_strings and a.dest != "help"}
    assert in_doc == flags, {"missing from docs/cli.md": flags - in_doc, "not a flag": in_doc - flags}
    assert {"quiet", "verbose", "server_ready_timeout"} <= in_doc


def test_exit_codes_are_in_help_and_the_cli_doc() -> None:
    help_text = _run_parser().format_help()
    section = _section("Exit status")
    for code, meaning in EXIT_CODES:
        assert f"  {code}  {meaning}" in help_text
        assert f"| {code} | {meaning} |" in section
