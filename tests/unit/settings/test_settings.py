"""One source of truth per setting: the CLI flags, the Dagster config and the environment all derive from it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, fields
from pathlib import Path

import pytest
from dagster import ConfigurableResource

from ocr_pipeline.cli import build_parser, main, run_flags, vllm_flags
from ocr_pipeline.defs.resources import PipelineConfig, S3ClientResource, config_from_env, declared_resource
from ocr_pipeline.launch.k8s.config import K8sLaunchConfig
from ocr_pipeline.launch.vllm_server import VllmLaunchSettings
from ocr_pipeline.settings import (
    DEFAULT_MODEL,
    FALSE_WORDS,
    TRUE_WORDS,
    DeploymentSettings,
    PipelineSettings,
    declared_default,
    deployment_from_env,
    environment_rows,
    field_types,
    option,
    read_env,
    samples_dir,
    settings_from_env,
)
from ocr_pipeline.workspace.s3 import S3ClientSettings

REPO = Path(__file__).resolve().parents[3]


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


def test_every_variable_is_in_the_configuration_table() -> None:
    readme = (REPO / "docs" / "configuration.md").read_text()
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


@pytest.mark.parametrize(
    ("config", "declared"), [(PipelineConfig, PipelineSettings), (S3ClientResource, S3ClientSettings)]
)
def test_resource_classes_are_derived_from_their_declaration(config: type, declared: type) -> None:
    # The declared names (in order), types, defaults and help, and the methods and docstring of the base class.
    kinds = field_types(declared)
    specs = {f.name: f for f in fields(declared) if f.metadata["dagster"]}
    assert list(config.model_fields) == list(specs)  # same fields, same order
    for name, model_field in config.model_fields.items():
        assert model_field.annotation == kinds[name], name
        assert model_field.get_default(call_default_factory=True) == declared_default(specs[name]), name
        assert model_field.description == specs[name].metadata["help"], name
    assert config.__name__ == config.__qualname__ and config.__module__ == "ocr_pipeline.defs.resources"
    assert config.__doc__ and issubclass(config, ConfigurableResource)


def test_a_new_setting_is_a_resource_field_without_editing_the_resource() -> None:
    @dataclass
    class MoreSettings(PipelineSettings):
        page_budget_s: float = option(2.5, "seconds a page may take", env="PAGE_BUDGET_S")
        local_only: int = option(1, "not for Dagster", dagster=False)

    derived = declared_resource("PipelineConfig", PipelineConfig.__base__, MoreSettings)
    assert list(derived.model_fields) == [*PipelineConfig.model_fields, "page_budget_s"]
    added = derived.model_fields["page_budget_s"]
    assert (added.annotation, added.default, added.description) == (float, 2.5, "seconds a page may take")
    assert derived(workspace="/ws", page_budget_s=4.0).page_budget_s == 4.0


def test_one_boolean_and_list_syntax_for_every_settings_class() -> None:
    for word in TRUE_WORDS + tuple(w.upper() for w in TRUE_WORDS):
        assert settings_from_env({"OCR_PIPELINE_MARKDOWN": word}).markdown is True
        assert deployment_from_env({"OCR_PIPELINE_STREAM_PAGES": word}).stream_pages is True
    for word in FALSE_WORDS:
        assert settings_from_env({"OCR_PIPELINE_MARKDOWN": word}).markdown is False
        assert deployment_from_env({"OCR_PIPELINE_STREAM_PAGES": word}).stream_pages is False
    # A word that is neither is an error naming the variable, not a silent False.
    with pytest.raises(ValueError, match="OCR_PIPELINE_STREAM_PAGES"):
        deployment_from_env({"OCR_PIPELINE_STREAM_PAGES": "enabled"})
    with pytest.raises(ValueError, match="OCR_PIPELINE_K8S_VLLM_PORT"):
        K8sLaunchConfig.from_env({"OCR_PIPELINE_K8S_VLLM_PORT": "eighty"})
    # Lists: comma-separated or a JSON array, in the pipeline's settings as in the pod's.
    assert settings_from_env({"OCR_PIPELINE_PDFS": '["a,1.pdf", "b.pdf"]'}).pdfs == ["a,1.pdf", "b.pdf"]
    k8s = K8sLaunchConfig.from_env({"OCR_PIPELINE_K8S_NODE_SELECTOR": '{"pool": "gpu"}'})
    assert k8s.node_selector == {"pool": "gpu"}
    with pytest.raises(ValueError, match="OCR_PIPELINE_K8S_TOLERATIONS"):
        K8sLaunchConfig.from_env({"OCR_PIPELINE_K8S_TOLERATIONS": "gpu"})  # a toleration is an object: JSON only
    # The S3 roles' variables go through the same parser, `<ROLE>` filled in.
    env = {"OCR_PIPELINE_INPUT_ENDPOINT_URL": "http://in", "OCR_PIPELINE_WORKSPACE_REGION": "eu-west-1"}
    assert read_env(S3ClientSettings, env, role="input").endpoint_url == "http://in"
    assert read_env(S3ClientSettings, env, role="workspace") == S3ClientSettings(region_name="eu-west-1")


def test_a_bad_variable_is_a_usage_error_of_the_cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OCR_PIPELINE_MARKDOWN", "sure")
    assert main(["pending", "ws"]) == 2
    assert "OCR_PIPELINE_MARKDOWN" in capsys.readouterr().err


def test_no_default_is_written_twice() -> None:
    # The CLI's --vllm* flags show VllmLaunchSettings' defaults; the pod's port and the model name are those too.
    shown = {name: options.get("default") for name, options in vllm_flags()}
    launch = VllmLaunchSettings()
    assert shown == {
        "vllm": None,
        "vllm_port": launch.port,
        "gpu_memory_utilization": launch.gpu_memory_utilization,
        "tensor_parallel_size": launch.tensor_parallel_size,
        "data_parallel_size": launch.data_parallel_size,
        "vllm_args": "",
        "vllm_ready_timeout": launch.ready_timeout_s,
    }
    assert K8sLaunchConfig().vllm_port == launch.port
    assert launch.model == PipelineSettings(workspace="w").model == DEFAULT_MODEL
    source = "\n".join(p.read_text() for p in (REPO / "ocr_pipeline").rglob("*.py"))
    assert source.count("30024") == 1 and source.count(DEFAULT_MODEL) == 1


def test_nothing_is_read_from_the_environment_at_import() -> None:
    # Variables that do not parse break whoever reads them: importing the modules that declare or use settings,
    # the code location's included (its `defs` is a lazy `@definitions`), must read none of them.
    modules = [
        "ocr_pipeline.settings",
        "ocr_pipeline.workspace.s3",
        "ocr_pipeline.workspace.storage",
        "ocr_pipeline.launch.k8s.config",
        "ocr_pipeline.launch.vllm_server",
        "ocr_pipeline.defs.resources",
        "ocr_pipeline.defs.checks",
        "ocr_pipeline.defs.schedules",
        "ocr_pipeline.defs.sensors",
        "ocr_pipeline.defs.definitions",
        "ocr_pipeline.defs.materialize",
        "ocr_pipeline.local_run",
        "ocr_pipeline.cli",
    ]
    bad = {
        "OCR_PIPELINE_STREAM_PAGES": "maybe",
        "OCR_PIPELINE_SENSOR_MAX_RUNS": "many",
        "OCR_PIPELINE_EXECUTOR": "celery",
        "OCR_PIPELINE_CHECKS_DIR": "/nonexistent/checks",
        "OCR_PIPELINE_PAGES_PER_GROUP": "lots",
        "OCR_PIPELINE_K8S_VLLM_PORT": "eighty",
    }
    code = "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\n"
    env = {**os.environ, **bad}
    proc = subprocess.run([sys.executable, "-c", code, *modules], env=env, cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # ...and the variables are read when asked: loading the code location fails on the bad executor.
    env = {**os.environ, "OCR_PIPELINE_EXECUTOR": "celery"}
    code = "from ocr_pipeline.defs.definitions import defs; defs()"
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True)
    assert proc.returncode != 0 and "OCR_PIPELINE_EXECUTOR" in proc.stderr
