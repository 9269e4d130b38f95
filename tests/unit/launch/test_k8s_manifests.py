"""Every manifest in k8s/ and the pod built for a sample partition validate against the Kubernetes schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import kubernetes
import kubernetes_validate
import pytest
import yaml
from dagster_k8s.pipes import build_pod_body

from ocr_pipeline.launch.k8s import VLLM_CONTAINER, WORKER_CONTAINER, K8sLaunchConfig, build_pod, pipes_pod_args
from ocr_pipeline.launch.k8s.config import DEFAULT_TEMPLATE
from ocr_pipeline.launch.k8s.pod_spec import vllm_launch_settings
from ocr_pipeline.launch.vllm_server import VllmLaunchSettings, vllm_command
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.worker import worker_invocation

K8S_DIR = Path(__file__).resolve().parents[3] / "k8s"
# The oldest release with native sidecars on by default (1.29) up to the newest schema the package ships.
VERSIONS = ["1.29.0", kubernetes_validate.latest_version()]
# The pod template ships inside the package (read with importlib.resources); the rest are kubectl manifests.
MANIFESTS = [*sorted(p for p in K8S_DIR.glob("*.yaml") if p.name != "dagster-values.yaml"), Path(DEFAULT_TEMPLATE)]
SETTINGS = PipelineSettings(workspace="s3://bucket/ocr", model="allenai/olmOCR-2-7B-1025-FP8", api_key="k")
CONFIG = K8sLaunchConfig(
    api_key_secret="ocr-api-key",
    s3_secret="ocr-s3",
    model_cache_pvc="ocr-model-cache",
    node_selector={"cloud.google.com/gke-accelerator": "nvidia-l4"},
    tolerations=[{"key": "gpu", "operator": "Equal", "value": "l4", "effect": "NoSchedule"}],
)


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _validate(doc: dict[str, Any]) -> None:
    for version in VERSIONS:
        kubernetes_validate.validate(doc, version, strict=True)  # raises on any schema error or unknown field


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_manifest_validates(path: Path) -> None:
    for doc in _docs(path):
        _validate(doc)


def _pipes_body(pod: dict[str, Any]) -> dict[str, Any]:
    """The Pod exactly as PipesK8sClient would send it (its own build_pod_body, with Pipes' env added)."""
    meta, spec = pipes_pod_args(pod)
    env = {"DAGSTER_PIPES_CONTEXT": "e30=", "DAGSTER_PIPES_MESSAGES": "e30="}
    body = build_pod_body("dagster-run-vlm-ocr-outputs-1", None, None, env, meta, spec)
    return {"apiVersion": "v1", "kind": "Pod", **kubernetes.client.ApiClient().sanitize_for_serialization(body)}


@pytest.mark.parametrize("shared", [False, True], ids=["sidecar", "shared-service"])
def test_pod_for_a_partition_validates_as_built_and_as_sent(shared: bool) -> None:
    config = K8sLaunchConfig(**{**CONFIG.__dict__, "vllm_service_url": "http://ocr-vllm:30024" if shared else ""})
    pod = build_pod(SETTINGS, "g000042", config)
    _validate(pod)
    _validate(_pipes_body(pod))
    spec = pod["spec"]
    assert [c["name"] for c in spec["containers"]] == [WORKER_CONTAINER]
    for c in spec["containers"] + spec.get("initContainers", []):
        assert c["securityContext"]["allowPrivilegeEscalation"] is False
        assert c["resources"]["requests"] and c["resources"]["limits"]
    assert spec["securityContext"]["runAsNonRoot"] is True and spec["restartPolicy"] == "Never"
    if shared:
        assert "initContainers" not in spec and "nodeSelector" not in spec
        assert json.loads(spec["containers"][0]["env"][0]["value"])["server"] == "http://ocr-vllm:30024"
        return
    [vllm] = spec["initContainers"]
    assert vllm["name"] == VLLM_CONTAINER and vllm["restartPolicy"] == "Always"
    assert vllm["command"] == vllm_command(vllm_launch_settings(SETTINGS, config))
    assert vllm["command"][vllm["command"].index("--max-model-len") + 1] == "16384"
    assert vllm["command"][vllm["command"].index("--served-model-name") + 1] == SETTINGS.model
    assert vllm["resources"]["limits"]["nvidia.com/gpu"] == "1" == vllm["resources"]["requests"]["nvidia.com/gpu"]
    assert vllm["readinessProbe"]["httpGet"]["path"] == "/v1/models"
    assert vllm["startupProbe"]["failureThreshold"] * vllm["startupProbe"]["periodSeconds"] >= 900
    assert spec["nodeSelector"] == CONFIG.node_selector and spec["tolerations"] == CONFIG.tolerations
    [cache] = [v for v in spec["volumes"] if v["name"] == "model-cache"]
    assert cache == {"name": "model-cache", "persistentVolumeClaim": {"claimName": "ocr-model-cache"}}


def test_worker_command_and_env_are_worker_invocations() -> None:
    pod = build_pod(SETTINGS, "g000042", CONFIG)
    [worker] = pod["spec"]["containers"]
    args, env = worker_invocation(
        PipelineSettings(**{**SETTINGS.to_dict(redact=False), "server": "http://127.0.0.1:30024"}), "g000042"
    )
    assert worker["command"] == ["python", *args]
    plain = {e["name"]: e["value"] for e in worker["env"] if "value" in e}
    refs = {e["name"]: e["valueFrom"] for e in worker["env"] if "valueFrom" in e}
    assert set(plain) | set(refs) == set(env)
    assert plain == {k: v for k, v in env.items() if k != "OCR_PIPELINE_API_KEY"}
    assert refs == {"OCR_PIPELINE_API_KEY": {"secretKeyRef": {"name": "ocr-api-key", "key": "api-key"}}}
    assert worker["envFrom"] == [{"secretRef": {"name": "ocr-s3"}}]
    assert "k" not in [e.get("value") for e in worker["env"]]


def test_shared_vllm_deployment_matches_the_launcher() -> None:
    [deployment, _service] = _docs(K8S_DIR / "vllm-deployment.yaml")
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    assert container["command"] == vllm_command(VllmLaunchSettings(host="0.0.0.0"))


def test_unsafe_or_impossible_pods_are_refused() -> None:
    with pytest.raises(ValueError, match="API_KEY_SECRET"):
        build_pod(SETTINGS, "g1", K8sLaunchConfig())
    with pytest.raises(ValueError, match="s3://"):
        build_pod(PipelineSettings(workspace="/data/ws"), "g1", K8sLaunchConfig())
    with pytest.raises(ValueError, match="ocr_launcher"):
        PipelineSettings(workspace="/w", ocr_launcher="ssh").validate()


def test_config_from_env() -> None:
    env = {
        "OCR_PIPELINE_K8S_NAMESPACE": "ns",
        "OCR_PIPELINE_K8S_NODE_SELECTOR": "pool=gpu,zone=a",
        "OCR_PIPELINE_K8S_TOLERATIONS": '[{"key": "gpu", "operator": "Exists"}]',
        "OCR_PIPELINE_K8S_VLLM_PORT": "8000",
        "OCR_PIPELINE_K8S_POLL_INTERVAL_S": "0.5",
    }
    config = K8sLaunchConfig.from_env(env)
    assert config.namespace == "ns" and config.node_selector == {"pool": "gpu", "zone": "a"}
    assert config.tolerations == [{"key": "gpu", "operator": "Exists"}] and config.server_url().endswith(":8000")
    assert config.poll_interval_s == 0.5 and K8sLaunchConfig.from_env({}) == K8sLaunchConfig()


def test_helm_values_name_the_pieces_the_pipeline_needs() -> None:
    values = yaml.safe_load((K8S_DIR / "dagster-values.yaml").read_text())
    assert values["runLauncher"]["type"] == "K8sRunLauncher" and values["postgresql"]["enabled"]
    daemon = values["dagsterDaemon"]
    assert daemon["runMonitoring"]["enabled"] and daemon["runRetries"]["retryOnAssetOrOpFailure"] is False
    assert values["concurrency"]["enabled"] and values["concurrency"]["pools"]["defaultLimit"] >= 1
    [deployment] = values["dagster-user-deployments"]["deployments"]
    env = {e["name"]: e["value"] for e in deployment["env"]}
    assert env["OCR_PIPELINE_LAUNCHER"] == "k8s" and env["OCR_PIPELINE_EXECUTOR"] == "in_process"
    # The shared vLLM Deployment is the default: no model load per partition (docs/decisions.md).
    assert env["OCR_PIPELINE_K8S_VLLM_SERVICE_URL"].startswith("http://ocr-vllm.")
    rbac = _docs(K8S_DIR / "rbac.yaml")
    sa = values["runLauncher"]["config"]["k8sRunLauncher"]["runK8sConfig"]["podSpecConfig"]["serviceAccountName"]
    assert any(d["kind"] == "ServiceAccount" and d["metadata"]["name"] == sa for d in rbac)
    [pods_role] = [d for d in rbac if d["kind"] == "Role" and d["metadata"]["name"] == "ocr-pipeline-pipes-pods"]
    assert pods_role["rules"] == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["create", "get", "list", "watch", "delete"]},
        {"apiGroups": [""], "resources": ["pods/log"], "verbs": ["get"]},
    ]


def test_executor_is_chosen_by_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from dagster import in_process_executor, multiprocess_executor
    from dagster_k8s import k8s_job_executor

    from ocr_pipeline.defs.definitions import executor_for
    from ocr_pipeline.settings import deployment_from_env

    def executor_from_env() -> object:
        return executor_for(deployment_from_env())

    monkeypatch.setenv("OCR_PIPELINE_EXECUTOR", "k8s")
    assert executor_from_env() is k8s_job_executor
    monkeypatch.delenv("OCR_PIPELINE_EXECUTOR")
    assert executor_from_env() is in_process_executor
    monkeypatch.setenv("OCR_PIPELINE_EXECUTOR", "multiprocess")
    assert executor_from_env() is multiprocess_executor
    monkeypatch.setenv("OCR_PIPELINE_EXECUTOR", "celery")
    with pytest.raises(ValueError, match="OCR_PIPELINE_EXECUTOR"):
        executor_from_env()
