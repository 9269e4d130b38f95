"""Work groups: the dynamic partitions every per-group asset is split by, and the guard each of them runs first."""

from dagster import DynamicPartitionsDefinition, Failure

from ocr_pipeline.workspace.keys import inventory_key
from ocr_pipeline.workspace.safepaths import safe_name
from ocr_pipeline.workspace.storage import Workspace

# The name as a plain str: the instance's partition calls want one, and the definition types its name Optional.
WORK_GROUPS = "work_groups"
work_groups = DynamicPartitionsDefinition(name=WORK_GROUPS)


def not_a_group_message(group: str) -> str:
    """The one line a run of a partition that no scan formed fails with."""
    return f"{group} is not a work group of this workspace; run pdf_inventory first"


def require_work_group(workspace: Workspace, group: str) -> None:
    """Fail the step, before any work and without retries, when `group` has no inventory file in `workspace`.

    The UI's "Add a partition" accepts any key: without this, a made-up one ends in a FileNotFoundError traceback.
    """
    # A key that is not its own file name ("g 1" is stored as g_1) names no group, whatever the file holds.
    formed = safe_name(group) == group and workspace.exists(inventory_key(group))
    if not formed:
        raise Failure(description=not_a_group_message(group), allow_retries=False)
