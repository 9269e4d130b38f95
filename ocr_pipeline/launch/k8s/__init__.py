"""Kubernetes manifests for the OCR step, built from k8s/ templates and the run's settings (no Dagster here)."""

from ocr_pipeline.launch.k8s.config import K8sLaunchConfig
from ocr_pipeline.launch.k8s.pod_spec import VLLM_CONTAINER, WORKER_CONTAINER, build_pod, pipes_pod_args

__all__ = ["VLLM_CONTAINER", "WORKER_CONTAINER", "K8sLaunchConfig", "build_pod", "pipes_pod_args"]
