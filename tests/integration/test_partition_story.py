"""What the Dagster UI shows of one partition: the rejected input by name, the text, the viewer, a warning as a
warning; and a made-up partition key failing in one line."""

from __future__ import annotations

from pathlib import Path

from dagster import AssetCheckSeverity, AssetKey, DagsterInstance, materialize

from ocr_pipeline.defs.assets import ALL_ASSETS
from ocr_pipeline.defs.checks import build_asset_checks
from ocr_pipeline.defs.materialize import ASSETS_AND_CHECKS, GROUP_ASSETS, run_inventory, run_resources
from ocr_pipeline.defs.partitions import WORK_GROUPS
from ocr_pipeline.settings import PipelineSettings
from tests.support.builders import pdfgen

# A warning that always fails on a shard with a document: the UI must show it as a warning, not a failure.
ALWAYS_WARNS = """\
version: 1
assets:
  dolma_shards:
    tests:
      - row_count: {max: 0, severity: warn, name: always_warns, description: "a shard with no documents"}
"""


def _metadata(instance: DagsterInstance, asset: str) -> dict[str, object]:
    event = instance.get_latest_materialization_event(AssetKey(asset))
    assert event is not None and event.asset_materialization is not None
    return {k: v.value for k, v in event.asset_materialization.metadata.items()}


def test_a_partition_tells_what_went_in_and_out(tmp_path: Path) -> None:
    corpus = tmp_path / "in"
    pdfgen.write(corpus / "good.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0], pdfgen.SENTENCES[1]]]))
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a PDF")
    settings = PipelineSettings(workspace=str(tmp_path / "ws"), pdfs=[str(corpus)])
    instance = DagsterInstance.ephemeral()
    [group] = run_inventory(settings, instance)

    inventory = _metadata(instance, "pdf_inventory")
    [row] = inventory["new_groups"].records  # type: ignore[attr-defined]
    assert row.data == {"group": group, "inputs": 2, "pages": 1, "rejected": 1}

    checks_dir = tmp_path / "checks"
    checks_dir.mkdir()
    (checks_dir / "warn.yml").write_text(ALWAYS_WARNS)
    result = materialize(
        [*ALL_ASSETS, *build_asset_checks(checks_dir)],
        selection=GROUP_ASSETS,
        partition_key=group,
        instance=instance,
        resources=run_resources(settings),
    )
    assert result.success

    filtered = _metadata(instance, "filtered_pdfs")
    # The numbers add up: every input of the group is kept or rejected, and the rejected one is named.
    assert filtered["inputs"] == filtered["kept"] + filtered["rejected"] == 2  # type: ignore[operator]
    [refused] = filtered["rejected_inputs"].records  # type: ignore[attr-defined]
    assert refused.data["input"].endswith("broken.pdf") and refused.data["reason"] and refused.data["stage"]

    shard = _metadata(instance, "dolma_shards")
    assert shard["documents"] == 1 and shard["inputs_accounted"] == 2 and shard["rejected"] == 1
    assert [r.data["input"].rsplit("/", 1)[-1] for r in shard["rejected_inputs"].records] == ["broken.pdf"]  # type: ignore[attr-defined]
    preview = str(shard["first_document"])
    assert "good.pdf" in preview and pdfgen.SENTENCES[0].split()[0] in preview
    assert str(shard["viewer_page"]).endswith(f"view/{group}.html") and group in str(shard["viewer_command"])
    # The CPU engine spends no tokens: no line of zeros to plot.
    assert "input_tokens" not in shard and "input_tokens" not in _metadata(instance, "vlm_ocr_outputs")

    [evaluation] = result.get_asset_check_evaluations()
    assert evaluation.check_name == "always_warns" and not evaluation.passed
    assert evaluation.severity == AssetCheckSeverity.WARN


def test_a_made_up_partition_fails_in_one_line(tmp_path: Path) -> None:
    settings = PipelineSettings(workspace=str(tmp_path / "ws"), pdfs=[str(tmp_path / "none")])
    instance = DagsterInstance.ephemeral()
    # What the UI's "Add a partition" does: the key exists in Dagster, no scan ever formed it.
    instance.add_dynamic_partitions(WORK_GROUPS, ["g000099"])
    for selection in (["filtered_pdfs"], ["page_images", "vlm_ocr_outputs"], ["dolma_shards"]):
        result = materialize(
            ASSETS_AND_CHECKS,
            selection=selection,
            partition_key="g000099",
            instance=instance,
            resources=run_resources(settings),
            raise_on_error=False,
        )
        assert not result.success
        [failure] = [e for e in result.all_events if e.is_step_failure]
        error = failure.step_failure_data.error
        assert failure.step_failure_data.user_failure_data is not None
        assert failure.step_failure_data.user_failure_data.description == (
            "g000099 is not a work group of this workspace; run pdf_inventory first"
        )
        # The guard runs first: nothing reached for the group's files.
        assert error is not None and error.cause is None  # the Failure itself, no exception under it
        text = error.to_string()
        assert "FileNotFoundError" not in text and "inventory/groups" not in text
