"""The per-partition OCR pod: the template in k8s/ plus this run's settings (pure; no Dagster, no API calls)."""

from __future__ import annotations

import copy
import dataclasses
import re
from pathlib import Path
from typing import Any

import yaml

from ocr_pipeline.launch.k8s.config import K8sLaunchConfig
from ocr_pipeline.launch.vllm_server import VllmLaunchSettings, vllm_command
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.worker import API_KEY_ENV, worker_invocation

VLLM_CONTAINER = "vllm"
WORKER_CONTAINER = "ocr-worker"
GPU_RESOURCE = "nvidia.com/gpu"
VLLM_API_KEY_ENV = "VLLM_API_KEY"  # vLLM reads its --api-key from here; the same Secret as the worker's


def load_template(path: str | Path) -> dict[str, Any]:
    """The Pod manifest the spec starts from."""
    data = yaml.safe_load(Path(path).read_text())
    if not isinstance(data, dict) or data.get("kind") != "Pod":
        raise ValueError(f"{path} is not a Pod manifest")
    return data


def _container(spec: dict[str, Any], key: str, name: str) -> dict[str, Any]:
    for container in spec.get(key) or []:
        if container.get("name") == name:
            return container
    raise ValueError(f"the pod template has no {key} entry named {name!r}")


def _secret_env(name: str, secret: str, key: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"secretKeyRef": {"name": secret, "key": key}}}


def pod_settings(settings: PipelineSettings, config: K8sLaunchConfig) -> PipelineSettings:
    """The settings the worker in the pod runs with: the same, but calling the pod's own server."""
    return dataclasses.replace(settings, server=config.server_url())


def vllm_launch_settings(settings: PipelineSettings, config: K8sLaunchConfig) -> VllmLaunchSettings:
    """How the sidecar starts vLLM; the served name is the pipeline's `model`, the one requests carry."""
    return VllmLaunchSettings(
        model=config.vllm_model or settings.model,
        served_model_name=settings.model,
        host="0.0.0.0",  # kubelet's probes come to the pod IP, not to localhost
        port=config.vllm_port,
        gpu_memory_utilization=config.vllm_gpu_memory_utilization,
    )


def worker_container_env(settings: PipelineSettings, group: str, config: K8sLaunchConfig) -> list[dict[str, Any]]:
    """The worker's env entries: worker_invocation's variables, the API key as a Secret reference."""
    _, env = worker_invocation(pod_settings(settings, config), group)
    if (settings.api_key or API_KEY_ENV in env) and not config.api_key_secret:
        raise ValueError("an API key is set: name its Secret in OCR_PIPELINE_K8S_API_KEY_SECRET (never inlined)")
    entries = [{"name": k, "value": v} for k, v in env.items() if k != API_KEY_ENV]
    if config.api_key_secret:
        entries.append(_secret_env(API_KEY_ENV, config.api_key_secret, config.api_key_secret_key))
    return entries


def pod_labels(group: str) -> dict[str, str]:
    """Labels that find a partition's pod (`kubectl get pods -l ocr-pipeline/group=g000001`)."""
    return {"app.kubernetes.io/name": "ocr-pipeline", "ocr-pipeline/group": re.sub(r"[^A-Za-z0-9_.-]", "_", group)}


def build_pod(settings: PipelineSettings, group: str, config: K8sLaunchConfig) -> dict[str, Any]:
    """The complete Pod manifest for one partition (what PipesK8sClient gets as base meta and spec)."""
    config.validate()
    pod = copy.deepcopy(load_template(config.template))
    spec = pod["spec"]
    worker = _container(spec, "containers", WORKER_CONTAINER)
    if len(spec["containers"]) != 1:
        # The API server picks the log of the only regular container; a second one would break Pipes.
        raise ValueError("the pod template must have exactly one regular container, the OCR worker")
    args, _ = worker_invocation(pod_settings(settings, config), group)
    worker["image"] = config.image
    worker["command"] = [config.python, *args]
    worker["env"] = worker_container_env(settings, group, config)
    if config.s3_secret:
        worker["envFrom"] = [{"secretRef": {"name": config.s3_secret}}]
    if not settings.workspace.startswith("s3://"):
        if not config.workspace_pvc or not settings.workspace.startswith("/"):
            raise ValueError(
                "the pod cannot see this machine's folders: use an s3:// workspace, or an absolute path "
                "on a volume named in OCR_PIPELINE_K8S_WORKSPACE_PVC"
            )
        worker.setdefault("volumeMounts", []).append({"name": "workspace", "mountPath": settings.workspace})
        spec["volumes"].append({"name": "workspace", "persistentVolumeClaim": {"claimName": config.workspace_pvc}})

    if config.shared_server:
        # No sidecar and no GPU: the pod only sends requests, so it goes wherever CPU is free.
        spec["initContainers"] = [c for c in spec.get("initContainers") or [] if c.get("name") != VLLM_CONTAINER]
        if not spec["initContainers"]:
            del spec["initContainers"]
        spec.pop("nodeSelector", None)
        spec.pop("tolerations", None)
        spec["volumes"] = [v for v in spec["volumes"] if v["name"] not in ("model-cache", "dshm")]
    else:
        vllm = _container(spec, "initContainers", VLLM_CONTAINER)
        vllm["image"] = config.vllm_image
        vllm["command"] = vllm_command(vllm_launch_settings(settings, config))
        for port in vllm.get("ports") or []:
            port["containerPort"] = config.vllm_port
        if config.api_key_secret:
            vllm.setdefault("env", []).append(
                _secret_env(VLLM_API_KEY_ENV, config.api_key_secret, config.api_key_secret_key)
            )
        if config.model_cache_pvc:
            for volume in spec["volumes"]:
                if volume["name"] == "model-cache":
                    volume.pop("emptyDir", None)
                    volume["persistentVolumeClaim"] = {"claimName": config.model_cache_pvc}
        if config.node_selector:
            spec["nodeSelector"] = dict(config.node_selector)
        if config.tolerations:
            spec["tolerations"] = [dict(t) for t in config.tolerations]
    if config.service_account:
        spec["serviceAccountName"] = config.service_account

    meta = pod.setdefault("metadata", {})
    meta["namespace"] = config.namespace
    meta["labels"] = {**(meta.get("labels") or {}), **pod_labels(group)}
    meta["name"] = f"ocr-{pod_labels(group)['ocr-pipeline/group'].lower().replace('_', '-')}"[:63]
    return pod


def pipes_pod_args(pod: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(base_pod_meta, base_pod_spec) for PipesK8sClient.run; it names the pod itself."""
    meta = {k: v for k, v in pod["metadata"].items() if k not in ("name", "namespace")}
    return meta, copy.deepcopy(pod["spec"])
