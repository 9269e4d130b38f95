"""What the asset catalog and each materialization show: groups, kinds, owners, schemas, rejections, cost."""

from __future__ import annotations

from dagster import AssetKey

from ocr_pipeline.defs.definitions import build_definitions
from ocr_pipeline.defs.partition_metadata import rejections_metadata, text_preview
from ocr_pipeline.defs.resources import pipeline_resources
from ocr_pipeline.launch.ocr_metadata import ocr_metadata
from ocr_pipeline.records import Rejection
from ocr_pipeline.settings import DeploymentSettings, PipelineSettings, deployment_from_env
from ocr_pipeline.stages.page_images import PAGES_SCHEMA
from ocr_pipeline.stages.vlm_ocr_outputs import OcrResult
from ocr_pipeline.workspace.manifest_schemas import OCR_SCHEMA


def _graph(owners: list[str], workspace: str = "/ws") -> object:
    resources = pipeline_resources(PipelineSettings(workspace=workspace))
    defs = build_definitions(resources, with_automation=False, deployment=DeploymentSettings(asset_owners=owners))
    return defs.resolve_asset_graph()


def test_assets_carry_groups_kinds_owners_schemas_and_code_references() -> None:
    owners = deployment_from_env({"OCR_PIPELINE_ASSET_OWNERS": "team:ocr, data@example.org"}).asset_owners
    assert owners == ["team:ocr", "data@example.org"]
    graph = _graph(owners)
    nodes = {k.to_user_string(): graph.get(k) for k in graph.get_all_asset_keys()}  # type: ignore[attr-defined]
    assert {name: node.group_name for name, node in nodes.items()} == {
        "pdf_inventory": "inventory",
        "filtered_pdfs": "inventory",
        "page_images": "ocr",
        "vlm_ocr_outputs": "ocr",
        "model_canary": "ocr",
        "dolma_shards": "output",
    }
    assert nodes["pdf_inventory"].kinds == {"pdf", "parquet"} and nodes["dolma_shards"].kinds == {"jsonl"}
    assert all("python" not in node.kinds and "s3" not in node.kinds for node in nodes.values())
    for name, node in nodes.items():
        assert node.owners == owners, name
        assert node.tags.get("stage"), name
        assert node.description and "dagster/code_references" in node.metadata, name
    # The column schemas are the Arrow schemas the stages write, column for column.
    pages = nodes["page_images"].metadata["dagster/column_schema"]
    assert [c.name for c in pages.columns] == PAGES_SCHEMA.names
    ocr = nodes["vlm_ocr_outputs"].metadata["dagster/column_schema"]
    assert [(c.name, c.type) for c in ocr.columns] == [(f.name, str(f.type)) for f in OCR_SCHEMA]
    dolma = [c.name for c in nodes["dolma_shards"].metadata["dagster/column_schema"].columns]
    assert {"id", "text", "metadata.Source-File", "attributes.pdf_page_numbers"} <= set(dolma)
    # The hourly price is a definition's text, never a plotted number of each run.
    assert "OCR_PIPELINE_HOURLY_COST_USD" in nodes["vlm_ocr_outputs"].metadata["cost"].value


def test_an_s3_workspace_adds_the_s3_kind_and_no_owners_by_default() -> None:
    graph = _graph(DeploymentSettings().asset_owners, "s3://bucket/prefix")
    for key in graph.get_all_asset_keys():  # type: ignore[attr-defined]
        node = graph.get(key)  # type: ignore[attr-defined]
        assert "s3" in node.kinds and node.owners == []
    assert graph.get(AssetKey("dolma_shards")).kinds == {"jsonl", "s3"}  # type: ignore[attr-defined]


def test_rejections_are_a_capped_table_with_the_rest_counted() -> None:
    rejections = [Rejection(f"/in/{i}.pdf", "corrupt_pdf", "inventory", "x" * 500) for i in range(53)]
    meta = rejections_metadata(rejections, cap=50)
    assert meta["rejected"] == 53 and meta["rejected_inputs_not_listed"] == 3
    records = meta["rejected_inputs"].records
    assert len(records) == 50 and records[0].data["input"] == "/in/0.pdf"
    assert len(records[0].data["detail"]) <= 200
    small = rejections_metadata(rejections[:2])
    assert "rejected_inputs_not_listed" not in small and len(small["rejected_inputs"].records) == 2


def test_the_text_preview_is_capped_markdown() -> None:
    preview = text_preview("/in/a.pdf", "first line\n\nsecond " + "word " * 1000, limit=100).value
    assert preview.startswith("**/in/a.pdf**") and "> first line" in preview
    assert "more characters in the shard" in preview and len(preview) < 300
    assert "more characters" not in text_preview("/in/b.pdf", "short").value


def test_cost_on_every_materialization_memo_reruns_included() -> None:
    fresh = ocr_metadata(OcrResult(pages=10, seconds=5.0), "/r", 3.6, "cpu", "rapidocr")
    # 0.5 s a page at $3.60 an hour; the price is in the text, not a number of its own.
    assert fresh["usd_per_million_pages"] == 500.0 and "$3.60/hour" in fresh["cost_basis"].value
    assert "hourly_cost_usd" not in fresh
    rerun = ocr_metadata(OcrResult(pages=10, memo_hits=10, seconds=0.2), "/r", 3.6, "cpu", "rapidocr")
    assert rerun["usd_per_million_pages"] == 0.0 and "from the memo" in rerun["cost_basis"].value
    unpriced = ocr_metadata(OcrResult(pages=10, memo_hits=10, seconds=0.2), "/r", 0.0, "cpu", "rapidocr")
    assert "usd_per_million_pages" not in unpriced and "cost_basis" not in unpriced
    # The CPU engine spends no tokens: none reported; a VLM's are.
    assert "input_tokens" not in fresh
    vlm = ocr_metadata(OcrResult(pages=1, input_tokens=900, seconds=1.0), "/r", 0.0, "vlm", "m")
    assert vlm["input_tokens"] == 900 and vlm["output_tokens"] == 0
