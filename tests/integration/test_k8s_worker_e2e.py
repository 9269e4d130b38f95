"""The pod's worker, run for real: through PipesSubprocessClient, and through PipesK8sClient against kmock."""

import json
import os
import sys
from pathlib import Path

import pytest
from dagster import (
    AssetExecutionContext,
    AssetKey,
    AssetSelection,
    DagsterInstance,
    MaterializeResult,
    PipesSubprocessClient,
    asset,
    materialize,
)

from ocr_pipeline.defs.materialize import ASSETS_AND_CHECKS, run_group, run_inventory, run_resources
from ocr_pipeline.defs.partitions import work_groups
from ocr_pipeline.launch.k8s import WORKER_CONTAINER, K8sLaunchConfig, build_pod
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.keys import dolma_key, pipes_prefix
from ocr_pipeline.workspace.s3 import S3Workspace
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl
from tests.support.builders import pdfgen
from tests.support.k8s_api import EmulatedCluster, container_env
from tests.support.s3_server import SeaweedS3
from tests.support.vlm_server import VlmTestServer

SECRETS = {"ocr-api-key": {"api-key": "sekret"}, "ocr-s3": {"AWS_DEFAULT_REGION": "us-east-1"}}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # The worker must get its settings from the pod's env alone, never from this process's.
    for name in list(os.environ):
        if name.startswith(("OCR_PIPELINE_", "AWS_", "KUBECONFIG", "KUBERNETES_")):
            monkeypatch.delenv(name)


def _inventory(settings: PipelineSettings, instance: DagsterInstance) -> str:
    [group] = run_inventory(settings, instance)
    return group


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "in"
    pdfgen.write(corpus / "a.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:2], pdfgen.SENTENCES[2:4]]))
    return corpus


def test_pod_worker_command_and_env_run_through_pipes_subprocess(tmp_path: Path) -> None:
    with VlmTestServer(api_key="sekret", model="olmocr-test") as server:
        settings = PipelineSettings(
            workspace=str(tmp_path / "ws"), pdfs=[str(_corpus(tmp_path))], model="olmocr-test", api_key="sekret"
        )
        instance = DagsterInstance.ephemeral()
        group = _inventory(settings, instance)
        # Render the pages the worker reads (CPU stages), then OCR with the pod's exact command and env.
        ok = materialize(
            ASSETS_AND_CHECKS,
            selection=AssetSelection.assets("filtered_pdfs", "page_images"),
            partition_key=group,
            instance=instance,
            resources=run_resources(settings),
        )
        assert ok.success
        config = K8sLaunchConfig(
            vllm_port=server.port, api_key_secret="ocr-api-key", s3_secret="ocr-s3", workspace_pvc="ws"
        )
        pod = build_pod(settings, group, config)
        [worker] = pod["spec"]["containers"]
        assert worker["name"] == WORKER_CONTAINER
        env = container_env(worker, SECRETS)

        # No `from __future__ import annotations` in this file: Dagster reads this annotation at runtime.
        @asset(partitions_def=work_groups)
        def pod_worker(context: AssetExecutionContext) -> MaterializeResult:
            command = [sys.executable if c == "python" else c for c in worker["command"]]
            return PipesSubprocessClient().run(command=command, context=context, env=env).get_materialize_result()

        result = materialize([pod_worker], partition_key=group, instance=instance)
        assert result.success
        [mat] = result.asset_materializations_for_node("pod_worker")
        assert mat.metadata["pages"].value == 2 and mat.metadata["error_pages"].value == 0
        assert len(server.requests) == 2 and not server.violations
        assert all(r.authorization == "Bearer sekret" for r in server.requests)


def _launch_env(monkeypatch: pytest.MonkeyPatch, cluster: EmulatedCluster, server: VlmTestServer, **extra: str) -> None:
    """The OCR_PIPELINE_K8S_* variables that point the launcher at the emulated cluster and the test server."""
    for name, value in {
        "KUBECONFIG": str(cluster.kubeconfig),
        "NAMESPACE": "ocr-test",
        "VLLM_PORT": str(server.port),  # the test server plays the sidecar on the pod's localhost
        "API_KEY_SECRET": "ocr-api-key",
        "S3_SECRET": "ocr-s3",
        "POLL_INTERVAL_S": "0.05",
        **extra,
    }.items():
        monkeypatch.setenv(f"OCR_PIPELINE_K8S_{name}", value)


def test_pipes_k8s_client_launches_the_pod_on_an_emulated_api_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with VlmTestServer(api_key="sekret", model="olmocr-test") as server, EmulatedCluster(SECRETS, tmp_path) as cluster:
        _launch_env(monkeypatch, cluster, server, WORKSPACE_PVC="ocr-workspace")
        settings = PipelineSettings(
            workspace=str(tmp_path / "ws"),
            pdfs=[str(_corpus(tmp_path))],
            model="olmocr-test",
            api_key="sekret",
            ocr_launcher="k8s",
            hourly_cost_usd=3.6,  # the GPU pod's price: its metadata names the cost as a local run's does
        )
        instance = DagsterInstance.ephemeral()
        group = _inventory(settings, instance)
        assert run_group(settings, group, instance)

        [pod] = cluster.created
        assert pod["metadata"]["namespace"] == "ocr-test" and pod["metadata"]["labels"]["ocr-pipeline/group"] == group
        assert [c["name"] for c in pod["spec"]["containers"]] == [WORKER_CONTAINER]
        assert [c["name"] for c in pod["spec"]["initContainers"]] == ["vllm"]
        env_names = [e["name"] for e in pod["spec"]["containers"][0]["env"]]
        assert {"OCR_PIPELINE_SETTINGS", "OCR_PIPELINE_API_KEY", "DAGSTER_PIPES_CONTEXT"} <= set(env_names)
        assert "sekret" not in str(pod)  # the key travelled as a Secret reference only
        name = pod["metadata"]["name"]
        assert cluster.exit_codes == {name: 0}
        assert "POST /api/v1/namespaces/ocr-test/pods" in cluster.requests
        assert f"GET /api/v1/namespaces/ocr-test/pods/{name}/log" in cluster.requests
        assert f"DELETE /api/v1/namespaces/ocr-test/pods/{name}" in cluster.requests
        # No container named: the API server then reads the only regular container, the worker.
        [log_request] = [r for r in list(cluster.api) if r.url.path.endswith("/log")]
        assert "container" not in log_request.url.query
        assert len(server.requests) == 2 and not server.violations
        [doc] = read_gzip_jsonl(LocalWorkspace(settings.workspace).read_bytes(dolma_key(group)))
        assert doc["metadata"]["engine"] == "vlm" and doc["metadata"]["model"] == "olmocr-test"
        event = instance.get_latest_materialization_event(AssetKey("vlm_ocr_outputs"))
        meta = {k: v.value for k, v in event.asset_materialization.metadata.items()}
        assert meta["engine"] == "vlm" and meta["model"] == "olmocr-test" and meta["pages"] == 2
        # The price is text beside the cost, not a number of its own (the same on every run, nothing to plot).
        assert meta["usd_per_million_pages"] > 0 and "$3.60/hour" in meta["cost_basis"]


def test_an_s3_workspace_brings_the_pods_messages_back_through_s3_not_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        SeaweedS3() as s3,
        VlmTestServer(api_key="sekret", model="olmocr-test") as server,
        # The pod gets the workspace's credentials only from its S3 Secret (envFrom), as in a cluster.
        EmulatedCluster({**SECRETS, "ocr-s3": s3.env()}, tmp_path) as cluster,
    ):
        s3.client().create_bucket(Bucket="ocr-ws")
        for key, value in s3.env().items():  # this process's workspace_s3 (boto3's chain)
            monkeypatch.setenv(key, value)
        _launch_env(monkeypatch, cluster, server)
        settings = PipelineSettings(
            workspace="s3://ocr-ws/runs/k8s",
            pdfs=[str(_corpus(tmp_path))],
            model="olmocr-test",
            api_key="sekret",
            ocr_launcher="k8s",
        )
        instance = DagsterInstance.ephemeral()
        group = _inventory(settings, instance)
        assert run_group(settings, group, instance)

        [pod] = cluster.created
        name = pod["metadata"]["name"]
        assert cluster.exit_codes == {name: 0}
        assert "volumes" not in pod["spec"] or all(v["name"] != "workspace" for v in pod["spec"]["volumes"])
        # Nobody read the pod's log: the messages came from S3 alone.
        assert f"GET /api/v1/namespaces/ocr-test/pods/{name}/log" not in cluster.requests
        assert f"DELETE /api/v1/namespaces/ocr-test/pods/{name}" in cluster.requests
        assert b'"__dagster_pipes_version"' not in cluster.logs[name]  # the default writer was not used either

        event = instance.get_latest_materialization_event(AssetKey("vlm_ocr_outputs"))
        assert event is not None and event.asset_materialization is not None
        meta = {k: v.value for k, v in event.asset_materialization.metadata.items()}
        assert meta["engine"] == "vlm" and meta["model"] == "olmocr-test" and meta["pages"] == 2
        assert meta["error_pages"] == 0 and meta["results"].startswith("s3://ocr-ws/runs/k8s/")
        assert len(server.requests) == 2 and not server.violations

        # The chunks PipesS3MessageWriter wrote, under the workspace: `pipes/<run id>/<session>/<n>.json`.
        workspace = S3Workspace(settings.workspace, s3.client())
        chunks = list(workspace.list(pipes_prefix(event.run_id)))
        assert chunks and all(k.endswith(".json") for k in chunks), chunks
        assert len({k.rsplit("/", 1)[0] for k in chunks}) == 1  # one Pipes session, one folder
        assert {k.rsplit("/", 2)[0] for k in chunks} == {pipes_prefix(event.run_id).rstrip("/")}
        assert list(workspace.list("pipes/")) == chunks  # nothing at the bucket's root or in another run's folder
        messages = [json.loads(line) for k in chunks for line in workspace.read_bytes(k).decode().splitlines()]
        methods = [m["method"] for m in messages]
        assert methods[0] == "opened" and methods[-1] == "closed" and "report_asset_materialization" in methods
        [report] = [m["params"] for m in messages if m["method"] == "report_asset_materialization"]
        assert report["metadata"]["pages"]["raw_value"] == 2
