"""Reading asset check evaluations back from a Dagster instance, as the UI shows them."""

from __future__ import annotations

from dagster import AssetCheckKey, AssetKey, DagsterInstance


def ocr_check(name: str) -> AssetCheckKey:
    """The key of one of vlm_ocr_outputs' data tests (dbt_like_checks/vlm_ocr_outputs.yml), by its name."""
    return AssetCheckKey(AssetKey("vlm_ocr_outputs"), name)


def latest_evaluation(instance: DagsterInstance, key: AssetCheckKey, group: str) -> tuple[str, dict[str, object]]:
    """Status and metadata of the check's latest evaluation on one partition."""
    for record in instance.event_log_storage.get_asset_check_execution_history(key, limit=20):
        evaluation = record.event.dagster_event.event_specific_data
        if evaluation.partition == group:
            return record.status.value, {k: v.value for k, v in evaluation.metadata.items()}
    raise AssertionError(f"{key} never ran on {group}")
