"""The OCR step on Kubernetes: one GPU pod per partition (vLLM sidecar + worker), launched with PipesK8sClient."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dagster import AssetExecutionContext, PipesMessageReader
from dagster_k8s import PipesK8sClient

from ocr_pipeline.launch.k8s.config import K8sLaunchConfig
from ocr_pipeline.launch.k8s.pod_spec import VLLM_CONTAINER, build_pod, pipes_pod_args
from ocr_pipeline.launch.ocr_metadata import pipes_report, reported_metadata
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.keys import ocr_key, pipes_prefix
from ocr_pipeline.workspace.s3 import S3Workspace
from ocr_pipeline.workspace.storage import Workspace


def s3_message_reader(workspace: Workspace, run_id: str, interval_s: float) -> PipesMessageReader | None:
    """The pod's Pipes messages as S3 objects under the workspace's `pipes/<run id>/`, when it is on S3; else None.

    None keeps PipesK8sClient's pod-log reader (a folder workspace). Through S3 the messages do not depend on the
    pod's log, which the API server may cut or rotate and which needs `pods/log` access; the worker writes them
    with dagster_pipes' PipesS3MessageWriter (worker.message_writer) and the workspace's credentials.
    """
    if not isinstance(workspace, S3Workspace):
        return None
    # Imported here to save start-up time: dagster_aws loads its whole package (0.7-0.9 s), and only a Kubernetes
    # step with an S3 workspace needs it.
    from dagster_aws.pipes import PipesS3MessageReader

    prefix = workspace.prefix + pipes_prefix(run_id)

    class WorkspaceS3MessageReader(PipesS3MessageReader):
        """dagster-aws's reader with its random session folder under the workspace prefix, not the bucket's root."""

        @contextmanager
        def get_params(self) -> Iterator[dict[str, Any]]:
            with super().get_params() as params:
                yield {**params, "key_prefix": prefix + params["key_prefix"]}

    # Not include_stdio_in_messages: dagster_pipes would tee the worker's stdout and stderr through two `tee`
    # processes and hold each pod ~6 s at exit, for streams that stay empty (the worker logs through Pipes, and
    # its errors come back with the `closed` message); they remain in the pod's own log.
    return WorkspaceS3MessageReader(bucket=workspace.bucket, client=workspace.client, interval=interval_s)


def make_pipes_client(config: K8sLaunchConfig, message_reader: PipesMessageReader | None = None) -> PipesK8sClient:
    """A PipesK8sClient for this config: a kubeconfig file if named, else auto-detected (in-cluster first).

    `message_reader` None: the messages come from the pod's log (PipesK8sPodLogsMessageReader).
    """
    return PipesK8sClient(
        kubeconfig_file=config.kubeconfig or None, poll_interval=config.poll_interval_s, message_reader=message_reader
    )


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
    reader = None if client else s3_message_reader(workspace, context.run.run_id, config.poll_interval_s)
    client = client or make_pipes_client(config, reader)
    completed = client.run(
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
