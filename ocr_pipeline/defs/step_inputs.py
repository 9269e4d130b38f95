"""How every asset, check and sensor opens its work: settings, then workspace, then the group check, then clients."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ocr_pipeline.defs.partitions import require_work_group
from ocr_pipeline.defs.resources import PipelineConfig, S3ClientResource
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.storage import Workspace


@dataclass(frozen=True)
class StepInputs:
    """What a step works with: the validated run settings, its workspace, and the inputs' S3 resource."""

    settings: PipelineSettings
    workspace: Workspace
    input_s3: S3ClientResource | None = None

    def input_client(self, *specs: str) -> Any:
        """A client for the inputs (`specs`, else the settings' pdfs) when any is on S3; None when all are local."""
        if self.input_s3 is None:
            raise ValueError("this step was opened without the input_s3 resource")
        return self.input_s3.client_for(*(specs or self.settings.pdfs))


def open_step(
    pipeline_config: PipelineConfig,
    workspace_s3: S3ClientResource,
    *,
    group: str | None = None,
    input_s3: S3ClientResource | None = None,
    settings: PipelineSettings | None = None,
) -> StepInputs:
    """The step's settings (the resource's, or `settings` derived from them), its workspace, and `group` checked.

    A work group's step fails before any work when no scan formed the group (require_work_group).
    """
    settings = pipeline_config.settings() if settings is None else settings
    workspace = workspace_s3.open_workspace(settings.workspace)
    if group is not None:
        require_work_group(workspace, group)
    return StepInputs(settings, workspace, input_s3)
