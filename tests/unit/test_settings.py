"""One source of truth per setting: the CLI flags, the Dagster config and the environment all derive from it."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from ocr_pipeline.cli import build_parser, run_flags
from ocr_pipeline.defs.resources import PipelineConfig, config_from_env
from ocr_pipeline.settings import (
    DeploymentSettings,
    PipelineSettings,
    deployment_from_env,
    environment_rows,
    samples_dir,
    settings_from_env,
)

REPO = Path(__file__).resolve().parents[2]


def test_cli_flags_dagster_fields_and_variables_come_from_the_dataclass() -> None:
    declared = {f.name for f in fields(PipelineSettings)}
    flagged = {name for name, _ in run_flags()}
    assert flagged == {f.name for f in fields(PipelineSettings) if f.metadata["flag"]}
    assert flagged <= declared
    assert set(PipelineConfig.model_fields) == {f.name for f in fields(PipelineSettings) if f.metadata["dagster"]}
    # The help text of a flag and the description of its config field are the declared help.
    help_of = {f.name: f.metadata["help"] for f in fields(PipelineSettings)}
    assert PipelineConfig.model_fields["max_page_retries"].description == help_of["max_page_retries"]
    run = next(a for a in build_parser()._subparsers._group_actions[0].choices["run"]._actions if a.dest == "model")
    assert run.help == help_of["model"]


def test_environment_reading_follows_the_declarations() -> None:
    env = {
        "OCR_PIPELINE_WORKSPACE": "/ws",
        "OCR_PIPELINE_PDFS": "a.pdf, b/ ,",
        "OCR_PIPELINE_MARKDOWN": "1",
        "OCR_PIPELINE_PAGES_PER_GROUP": "7",
        "OCR_PIPELINE_MAX_PAGE_ERROR_RATE": "0.5",
        "OCR_PIPELINE_SERVER": "http://127.0.0.1:1/v1",
        "OCR_PIPELINE_LAUNCHER": "k8s",
        "OCR_PIPELINE_SENSOR_MAX_RETRIES": "5",
    }
    settings = settings_from_env(env)
    assert settings.workspace == "/ws" and settings.pdfs == ["a.pdf", "b/"]
    assert settings.markdown is True and settings.apply_filter is False
    assert (settings.pages_per_group, settings.max_page_error_rate) == (7, 0.5)
    assert settings.server == "http://127.0.0.1:1/v1" and settings.ocr_launcher == "k8s"
    assert deployment_from_env(env).sensor_max_retries == 5
    defaults = settings_from_env({})
    assert defaults.pdfs == [str(samples_dir())] and defaults.workspace.endswith("ocr-workspace")
    assert defaults.server is None and defaults.pages_per_group == PipelineSettings(workspace="x").pages_per_group


def test_secrets_stay_environment_variables_in_dagster(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OCR_PIPELINE_API_KEY", "sk-secret")
    config = config_from_env()
    assert config.api_key == "OCR_PIPELINE_API_KEY"  # an EnvVar: the name, never the value, in the UI
    assert config.process_config_and_initialize().settings().api_key == "sk-secret"  # resolved in a run
    assert PipelineSettings(workspace="w", api_key="sk-secret").to_dict()["api_key"] == "***"


def test_every_variable_is_in_the_readme_table() -> None:
    readme = (REPO / "README.md").read_text()
    table = {m.group(1) for m in re.finditer(r"^\| `(OCR_PIPELINE_[A-Z0-9_<>]+)` \|", readme, re.M)}
    declared = {name for name, _, _ in environment_rows()}
    assert declared <= table, sorted(declared - table)
    # Every variable the package's code names anywhere is in the table too (prefix families by their pattern).
    used = set()
    for path in (REPO / "ocr_pipeline").rglob("*.py"):
        used |= set(re.findall(r"OCR_PIPELINE_[A-Z0-9_]*[A-Z0-9]", path.read_text()))
    families = {"OCR_PIPELINE_K8S_", "OCR_PIPELINE_INPUT_", "OCR_PIPELINE_WORKSPACE_"}
    covered = {u for u in used if u in table or any((u + "_").startswith(f) for f in families)}
    assert used - covered == set()
    assert {"OCR_PIPELINE_K8S_<FIELD>", "OCR_PIPELINE_<ROLE>_<FIELD>"} <= table


def test_deployment_settings_are_declared_once() -> None:
    assert {f.name for f in fields(DeploymentSettings)} >= {"sensor_max_new_inputs", "scan_cron", "executor"}
    assert all(f.metadata["env"].startswith("OCR_PIPELINE_") for f in fields(DeploymentSettings))


def test_the_cli_takes_its_variables_as_defaults_and_flags_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OCR_PIPELINE_PAGES_PER_GROUP", "7")
    monkeypatch.setenv("OCR_PIPELINE_MARKDOWN", "1")
    monkeypatch.setenv("OCR_PIPELINE_SERVER_READY_TIMEOUT_S", "5")
    monkeypatch.setenv("OCR_PIPELINE_PDFS", "/somewhere/else")
    from ocr_pipeline.cli import settings_from_args

    exported = settings_from_args(build_parser().parse_args(["run", "ws"]))
    assert (exported.pages_per_group, exported.markdown, exported.server_ready_timeout) == (7, True, 5.0)
    assert exported.pdfs == []  # inputs are always given on the command line
    flagged = settings_from_args(build_parser().parse_args(["run", "ws", "--pages-per-group", "9"]))
    assert flagged.pages_per_group == 9
