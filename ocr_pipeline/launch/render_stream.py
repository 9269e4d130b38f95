"""Whether page_images streams its pages to the VLM server, and who collects the answers when it ends."""

from __future__ import annotations

from ocr_pipeline.settings import PipelineSettings, deployment_from_env
from ocr_pipeline.stages.ocr_stream import GroupStream, drop_group_stream, open_group_stream
from ocr_pipeline.workspace.storage import Workspace


def start_render_stream(
    settings: PipelineSettings, workspace: Workspace, group: str, ocr_runs_next: bool
) -> GroupStream | None:
    """Open the group's OCR stream when a local VLM server reads the pages; None otherwise (CPU engine, k8s).

    `ocr_runs_next`: this run also materializes vlm_ocr_outputs. Only then, and only when its steps share this
    process (the in_process executor), is anything streamed: a render-only run sends nothing.
    """
    deployment = deployment_from_env()
    if not settings.server or settings.ocr_launcher == "k8s" or not deployment.stream_pages:
        return None  # a GPU pod has its own server, out of this process's reach
    if not ocr_runs_next or deployment.executor not in ("", "in_process"):
        return None
    return open_group_stream(workspace, group, settings)


def end_render_stream(workspace: Workspace, group: str, opened: GroupStream | None, rendered: bool) -> None:
    """Leave the stream to this run's OCR step, or, when rendering failed, finish it here.

    Answers already streamed then wait in the memo for the group's rerun.
    """
    if opened is not None and not rendered:
        drop_group_stream(workspace, group)
