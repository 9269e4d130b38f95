"""Kubernetes launch settings for the OCR step, read from OCR_PIPELINE_K8S_* variables (no Dagster here)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ocr_pipeline.launch.vllm_server import VllmLaunchSettings
from ocr_pipeline.settings import option, read_env

# Shipped inside the package (read with importlib.resources); OCR_PIPELINE_K8S_TEMPLATE names another file.
DEFAULT_TEMPLATE = Path(str(resources.files("ocr_pipeline.launch.k8s") / "ocr-pod-template.yaml"))
# olmOCR's own vLLM pin era; the image must run the olmOCR-2 (Qwen2.5-VL) checkpoints.
DEFAULT_VLLM_IMAGE = "vllm/vllm-openai:v0.11.2"


@dataclass
class K8sLaunchConfig:
    """Where and how the per-partition GPU pod runs; every field has an OCR_PIPELINE_K8S_<FIELD> variable."""

    namespace: str = option("ocr-pipeline", "namespace of the GPU pods", env="K8S_NAMESPACE")
    image: str = option(
        "ocr-pipeline:0.1.0", "the code-location image (Dockerfile); the worker runs from it", env="K8S_IMAGE"
    )
    python: str = option("python", "the worker's interpreter inside that image", env="K8S_PYTHON")
    template: str = option(str(DEFAULT_TEMPLATE), "pod template YAML", env="K8S_TEMPLATE")
    vllm_image: str = option(DEFAULT_VLLM_IMAGE, "the vLLM sidecar's image", env="K8S_VLLM_IMAGE")
    vllm_model: str = option(
        "", "the checkpoint vLLM loads; empty: the pipeline's `model` (also the served name)", env="K8S_VLLM_MODEL"
    )
    vllm_port: int = option(VllmLaunchSettings.port, "the sidecar's port", env="K8S_VLLM_PORT")
    vllm_gpu_memory_utilization: float | None = option(
        None, "vLLM's --gpu-memory-utilization in the sidecar", env="K8S_VLLM_GPU_MEMORY_UTILIZATION"
    )
    vllm_service_url: str = option(
        "",
        "non-empty: no sidecar; the worker pod is CPU-only and talks to the shared vLLM Service at this URL",
        env="K8S_VLLM_SERVICE_URL",
    )
    node_selector: dict[str, str] = option({}, "k=v,k2=v2 or JSON; empty: the template's", env="K8S_NODE_SELECTOR")
    tolerations: list[dict[str, Any]] = option([], "a JSON array; empty: the template's", env="K8S_TOLERATIONS")
    model_cache_pvc: str = option(
        "", "PVC for the weights; empty: an emptyDir, so every pod downloads them again", env="K8S_MODEL_CACHE_PVC"
    )
    workspace_pvc: str = option(
        "", "needed only for a workspace that is a folder rather than s3://", env="K8S_WORKSPACE_PVC"
    )
    api_key_secret: str = option(
        "", "Secret holding the server's API key (never inlined in the pod)", env="K8S_API_KEY_SECRET"
    )
    api_key_secret_key: str = option("api-key", "the key of the API key in that Secret", env="K8S_API_KEY_SECRET_KEY")
    s3_secret: str = option(
        "", "Secret with AWS_* variables for the workspace, passed whole via envFrom", env="K8S_S3_SECRET"
    )
    service_account: str = option(
        "", "the GPU pod needs no API access; empty keeps the namespace default", env="K8S_SERVICE_ACCOUNT"
    )
    kubeconfig: str = option(
        "", "empty: in-cluster config when run inside Kubernetes, else ~/.kube/config", env="K8S_KUBECONFIG"
    )
    poll_interval_s: float = option(10.0, "seconds between pod status polls", env="K8S_POLL_INTERVAL_S")
    pod_wait_timeout_s: float = option(24 * 3600.0, "seconds a pod may take in all", env="K8S_POD_WAIT_TIMEOUT_S")

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
        """The config from OCR_PIPELINE_K8S_* variables (the settings' one parser); unset ones keep their defaults."""
        return read_env(cls, environ).validate()
