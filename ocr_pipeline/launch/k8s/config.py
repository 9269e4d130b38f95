"""Kubernetes launch settings for the OCR step, read from OCR_PIPELINE_K8S_* variables (no Dagster here)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

ENV_PREFIX = "OCR_PIPELINE_K8S_"
# Shipped inside the package (read with importlib.resources); OCR_PIPELINE_K8S_TEMPLATE names another file.
DEFAULT_TEMPLATE = Path(str(resources.files("ocr_pipeline.launch.k8s") / "ocr-pod-template.yaml"))
# olmOCR's own vLLM pin era; the image must run the olmOCR-2 (Qwen2.5-VL) checkpoints.
DEFAULT_VLLM_IMAGE = "vllm/vllm-openai:v0.11.2"


def _parse_mapping(text: str) -> dict[str, str]:
    """`{"k": "v"}` JSON or `k=v,k2=v2`."""
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        return {str(k): str(v) for k, v in json.loads(text).items()}
    pairs = [p.split("=", 1) for p in text.split(",") if p.strip()]
    if any(len(p) != 2 for p in pairs):
        raise ValueError(f"expected k=v,k2=v2 or a JSON object, got {text!r}")
    return {k.strip(): v.strip() for k, v in pairs}


@dataclass
class K8sLaunchConfig:
    """Where and how the per-partition GPU pod runs; every field has an OCR_PIPELINE_K8S_<FIELD> variable."""

    namespace: str = "ocr-pipeline"
    image: str = "ocr-pipeline:0.1.0"  # the code-location image (Dockerfile); the worker runs from it
    python: str = "python"  # the worker's interpreter inside that image
    template: str = str(DEFAULT_TEMPLATE)
    vllm_image: str = DEFAULT_VLLM_IMAGE
    vllm_model: str = ""  # the checkpoint vLLM loads; empty: the pipeline's `model` (also the served name)
    vllm_port: int = 30024
    vllm_gpu_memory_utilization: float | None = None
    # Non-empty: no sidecar; the worker pod is CPU-only and talks to the shared vLLM Service at this URL.
    vllm_service_url: str = ""
    node_selector: dict[str, str] = field(default_factory=dict)  # empty: the template's
    tolerations: list[dict[str, Any]] = field(default_factory=list)  # empty: the template's
    model_cache_pvc: str = ""  # empty: an emptyDir, so every pod downloads the weights again
    workspace_pvc: str = ""  # needed only for a workspace that is a folder rather than s3://
    api_key_secret: str = ""  # Secret holding the server's API key (never inlined in the pod)
    api_key_secret_key: str = "api-key"
    s3_secret: str = ""  # Secret with AWS_* variables for the workspace, passed whole via envFrom
    service_account: str = ""  # the GPU pod needs no API access; empty keeps the namespace default
    kubeconfig: str = ""  # empty: in-cluster config when run inside Kubernetes, else ~/.kube/config
    poll_interval_s: float = 10.0
    pod_wait_timeout_s: float = 24 * 3600.0

    @property
    def shared_server(self) -> bool:
        """True when the worker uses the long-lived vLLM Service instead of a sidecar."""
        return bool(self.vllm_service_url)

    def server_url(self) -> str:
        """The URL the worker calls: the sidecar on localhost, or the shared Service."""
        return self.vllm_service_url.rstrip("/") if self.shared_server else f"http://127.0.0.1:{self.vllm_port}"

    def validate(self) -> K8sLaunchConfig:
        """Raise ValueError for settings that cannot make a valid pod; returns self."""
        if not self.namespace or not self.image:
            raise ValueError("OCR_PIPELINE_K8S_NAMESPACE and OCR_PIPELINE_K8S_IMAGE must not be empty")
        if not 1 <= self.vllm_port <= 65535:
            raise ValueError("OCR_PIPELINE_K8S_VLLM_PORT must be a TCP port")
        if self.shared_server and not self.vllm_service_url.startswith(("http://", "https://")):
            raise ValueError("OCR_PIPELINE_K8S_VLLM_SERVICE_URL must be an http(s) URL")
        if self.poll_interval_s <= 0:
            raise ValueError("OCR_PIPELINE_K8S_POLL_INTERVAL_S must be positive")
        return self

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> K8sLaunchConfig:
        """The config from OCR_PIPELINE_K8S_* variables; unset ones keep their defaults."""
        env = os.environ if environ is None else environ
        kwargs: dict[str, Any] = {}
        for name, default in cls().__dict__.items():
            raw = env.get(ENV_PREFIX + name.upper())
            if raw is None:
                continue
            if name == "node_selector":
                kwargs[name] = _parse_mapping(raw)
            elif name == "tolerations":
                kwargs[name] = json.loads(raw) if raw.strip() else []
            elif name == "vllm_gpu_memory_utilization":
                kwargs[name] = float(raw) if raw.strip() else None
            elif isinstance(default, bool):
                kwargs[name] = raw == "1"
            elif isinstance(default, int):
                kwargs[name] = int(raw)
            elif isinstance(default, float):
                kwargs[name] = float(raw)
            else:
                kwargs[name] = raw
        return cls(**kwargs).validate()
