"""The OCR step on Kubernetes: one GPU pod per partition (vLLM sidecar + worker), launched with PipesK8sClient."""

from __future__ import annotations

from typing import Any

from dagster import AssetExecutionContext
from dagster_k8s import PipesK8sClient

from ocr_pipeline.launch.k8s.config import K8sLaunchConfig
from ocr_pipeline.launch.k8s.pod_spec import VLLM_CONTAINER, build_pod, pipes_pod_args
from ocr_pipeline.launch.ocr_metadata import pipes_report, reported_metadata
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.keys import ocr_key
from ocr_pipeline.workspace.storage import Workspace


def make_pipes_client(config: K8sLaunchConfig) -> PipesK8sClient:
    """A PipesK8sClient for this config: a kubeconfig file if named, else auto-detected (in-cluster first)."""
    return PipesK8sClient(kubeconfig_file=config.kubeconfig or None, poll_interval=config.poll_interval_s)


def run_k8s_worker(
    context: AssetExecutionContext,
    settings: PipelineSettings,
    workspace: Workspace,
    config: K8sLaunchConfig | None = None,
    client: PipesK8sClient | None = None,
) -> dict[str, Any]:
    """Run the partition's worker in its own pod; its Pipes report becomes the metadata every launcher gives."""
    config = config or K8sLaunchConfig.from_env()
    group = context.partition_key
    pod = build_pod(settings, group, config)
    base_meta, base_spec = pipes_pod_args(pod)
    context.log.info(
        f"launching the OCR pod for {group} in namespace {config.namespace} "
        f"({'shared vLLM at ' + config.server_url() if config.shared_server else 'vLLM sidecar'})"
    )
    completed = (client or make_pipes_client(config)).run(
        context=context,
        namespace=config.namespace,
        base_pod_meta=base_meta,
        base_pod_spec=base_spec,
        # dagster-k8s waits on every container's exit code; a sidecar stopped by SIGTERM after the worker
        # finishes may exit non-zero and would read as "will be restarted" until the timeout. The pod's
        # outcome is the worker's, so the sidecar is left out of the waits.
        ignore_containers=None if config.shared_server else {VLLM_CONTAINER},
        pod_wait_timeout=config.pod_wait_timeout_s,
    )
    reported = pipes_report(completed)
    uri = f"{workspace.uri}/{ocr_key(group)}"
    # The pod's GPU price is the same setting as a local one: usd_per_million_pages comes out the same way.
    return reported_metadata(reported, uri, settings.hourly_cost_usd, "vlm", settings.model)
