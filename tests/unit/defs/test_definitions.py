"""A snapshot of the Dagster graph: asset keys, dependencies, partitions, jobs, resources and pools."""

from __future__ import annotations

from dagster import AssetCheckKey, AssetKey

from ocr_pipeline.defs.definitions import defs as load_defs

# The code location is built when Dagster asks for it (a lazy `@definitions`), here once for every test.
defs = load_defs()


def test_asset_graph_snapshot() -> None:
    graph = defs.resolve_asset_graph()
    keys = sorted(k.to_user_string() for k in graph.get_all_asset_keys())
    assert keys == ["dolma_shards", "filtered_pdfs", "model_canary", "page_images", "pdf_inventory", "vlm_ocr_outputs"]
    chain = ["pdf_inventory", "filtered_pdfs", "page_images", "vlm_ocr_outputs", "dolma_shards"]
    for upstream, downstream in zip(chain, chain[1:], strict=False):
        assert graph.get(AssetKey(downstream)).parent_keys == {AssetKey(upstream)}
    assert graph.get(AssetKey("pdf_inventory")).partitions_def is None
    for key in chain[1:]:
        assert graph.get(AssetKey(key)).partitions_def.name == "work_groups"
    assert graph.get(AssetKey("vlm_ocr_outputs")).pools == {"gpu"}
    # The canary stands apart: no partitions, no parents, no children; the sensor reads its verdict marker.
    canary = graph.get(AssetKey("model_canary"))
    assert canary.partitions_def is None and canary.parent_keys == set() and canary.child_keys == set()
    check = graph.get_check_spec(AssetCheckKey(AssetKey("model_canary"), "canary_pass_rate"))
    assert check.blocking and check.partitions_def is None
    assert defs.resolve_job_def("model_canary_job").partitions_def is None


def test_jobs_and_resources() -> None:
    assert defs.resolve_job_def("ocr_job").partitions_def.name == "work_groups"
    assert defs.resolve_job_def("inventory_job") is not None
    assert {"pipeline_config", "progress"} <= set(defs.resources)


def test_data_tests_are_partitioned_asset_checks() -> None:
    graph = defs.resolve_asset_graph()
    checks = {(k.asset_key.to_user_string(), k.name) for k in graph.asset_check_keys}
    assert {("vlm_ocr_outputs", "page_error_rate"), ("dolma_shards", "dolma_schema")} <= checks
    partitioned = {"filtered_pdfs", "page_images", "vlm_ocr_outputs", "dolma_shards"}
    assert {asset for asset, _ in checks} == {*partitioned, "model_canary"}
    error_rate = graph.get_check_spec(AssetCheckKey(AssetKey("vlm_ocr_outputs"), "page_error_rate"))
    assert error_rate.blocking and error_rate.partitions_def.name == "work_groups"


def test_pipeline_config_mirrors_the_plain_settings() -> None:
    from dataclasses import fields

    from ocr_pipeline.defs.resources import PipelineConfig
    from ocr_pipeline.settings import PipelineSettings

    # Every CLI setting but the process count is a resource field, and back again without loss.
    assert set(PipelineConfig.model_fields) == {f.name for f in fields(PipelineSettings)} - {"workers"}
    settings = PipelineSettings(workspace="/ws", pdfs=["a.pdf"], server="http://x", apply_filter=True, workers=1)
    assert PipelineConfig.from_settings(settings).settings() == settings


def test_cost_per_million_pages() -> None:
    from ocr_pipeline.launch.ocr_metadata import cost_metadata
    from ocr_pipeline.settings import settings_from_env

    unset = settings_from_env({}).hourly_cost_usd
    assert cost_metadata(100, 0, 50.0, unset) == {}  # no price configured, no made-up number
    hourly = settings_from_env({"OCR_PIPELINE_HOURLY_COST_USD": "3.6"}).hourly_cost_usd
    # 0.5 s a page at $3.60 an hour: $500 per million pages; memo hits cost nothing.
    assert cost_metadata(120, 20, 50.0, hourly)["usd_per_million_pages"] == 500.0
    assert cost_metadata(20, 20, 1.0, hourly) == {}
