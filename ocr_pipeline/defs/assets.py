"""The pipeline's assets: inventory, then per work group filter → render → OCR → Dolma shards."""

from dagster import (
    AssetExecutionContext,
    Config,
    MaterializeResult,
    MetadataValue,
    asset,
)

from ocr_pipeline.defs.catalog import INVENTORY_GROUP, OUTPUT_GROUP, definition_metadata
from ocr_pipeline.defs.partition_metadata import groups_metadata, rejections_metadata, text_preview, viewer_metadata
from ocr_pipeline.defs.partitions import work_groups
from ocr_pipeline.defs.render_ocr import VLM_OCR_OUTPUTS, render_and_ocr
from ocr_pipeline.defs.resources import PipelineConfig, S3ClientResource
from ocr_pipeline.defs.step_inputs import open_step
from ocr_pipeline.stages.dolma_shards import build_group_shard
from ocr_pipeline.stages.filtered_pdfs import filter_group
from ocr_pipeline.stages.pdf_inventory import list_groups, scan_inputs
from ocr_pipeline.workspace.keys import dolma_key, filtered_key, rejected_key

MAX_COMFORTABLE_PARTITIONS = 10_000


class InventoryConfig(Config):
    """Run config of one scan: the sources (a schedule per source sets them), and the sensor's listing window."""

    pdfs: list[str] = []
    # Set by work_group_sensor: per S3 spec, the key its listing resumes after, and the new inputs it counted.
    start_after: dict[str, str] = {}
    max_new_inputs: int | None = None


@asset(
    group_name=INVENTORY_GROUP,
    kinds={"pdf", "parquet"},
    tags={"stage": "inventory"},
    metadata=definition_metadata("pdf_inventory"),
)
def pdf_inventory(
    context: AssetExecutionContext,
    config: InventoryConfig,
    pipeline_config: PipelineConfig,
    workspace_s3: S3ClientResource,
    input_s3: S3ClientResource,
) -> MaterializeResult:
    """Every input found in the sources, with size, hash and page count, packed into work groups.

    Each new group becomes a partition of the other assets; a group's members never change once formed.
    """
    step = open_step(pipeline_config, workspace_s3, input_s3=input_s3)
    settings, workspace = step.settings, step.workspace
    specs = config.pdfs or settings.pdfs
    input_client = step.input_client(*specs)
    window = f" after {config.start_after}" if config.start_after else ""
    bound = f", at most {config.max_new_inputs} new inputs" if config.max_new_inputs else ""
    context.log.info(f"scanning {', '.join(specs)}{window}{bound}")
    result = scan_inputs(
        specs,
        workspace,
        settings.pages_per_group,
        input_client=input_client,
        cursor=config.start_after or None,
        max_new_inputs=config.max_new_inputs,
        max_archive_bytes=settings.max_archive_bytes,
        follow_external_links=settings.follow_external_links,
        pdf_memory_mb=settings.pdf_memory_mb,
    )
    groups = list_groups(workspace)
    registered = set(context.instance.get_dynamic_partitions(work_groups.name))
    missing = [g for g in groups if g not in registered]
    if missing:
        # Groups formed by an earlier scan (or another instance) are registered too, so none is orphaned.
        context.instance.add_dynamic_partitions(work_groups.name, missing)
    context.log.info(
        f"{result.new_inputs} new inputs in {len(result.new_groups)} new groups, {len(missing)} partitions registered"
        + ("" if result.complete else f" (stopped at the bound; resumes after {result.next_cursor})")
    )
    if len(groups) > MAX_COMFORTABLE_PARTITIONS:
        # Dagster's UI and backfill daemon slow down past tens of thousands of partitions.
        context.log.warning(
            f"{len(groups)} work groups: raise pages_per_group (now {settings.pages_per_group}) for new inputs"
        )
    return MaterializeResult(
        metadata={
            "new_inputs": result.new_inputs,
            "new_pages": result.new_pages,
            # S3 inputs are read by their group's filter step: until then their page count is an estimate.
            "new_pages_estimated": result.new_pages_estimated,
            **groups_metadata(result.group_facts),
            "total_groups": len(groups),
            "already_known_inputs": result.already_known,
            "rejected_by_reason": MetadataValue.json(result.rejected),
            # An archive cut short by the expansion budget has members no listing shows: the sensor scans again.
            "more_to_scan": bool(result.rejected.get("archive_budget_exceeded")),
            "workspace": MetadataValue.path(workspace.uri),
        }
    )


@asset(
    group_name=INVENTORY_GROUP,
    partitions_def=work_groups,
    deps=[pdf_inventory],
    kinds={"pdf", "parquet"},
    tags={"stage": "filter"},
    metadata=definition_metadata("filtered_pdfs"),
)
def filtered_pdfs(
    context: AssetExecutionContext,
    pipeline_config: PipelineConfig,
    workspace_s3: S3ClientResource,
    input_s3: S3ClientResource,
) -> MaterializeResult:
    """The group's inputs that pass the language, form and spam filters (the rest are rejections).

    S3 inputs are read here for the first time (the scan only lists them): their hash and page count are recorded.
    """
    step = open_step(pipeline_config, workspace_s3, group=context.partition_key, input_s3=input_s3)
    settings, workspace, input_client = step.settings, step.workspace, step.input_client()
    result = filter_group(
        workspace, context.partition_key, settings.apply_filter, input_client, pdf_memory_mb=settings.pdf_memory_mb
    )
    refused = result.input_rejections + result.filter_rejections
    return MaterializeResult(
        metadata={
            # inputs = kept + rejected; local inputs were read by the scan, S3 ones by this step.
            "inputs": result.kept + len(refused),
            "kept": result.kept,
            **rejections_metadata(refused),
            "first_read_by_this_step": result.probed,
            "filter_applied": settings.apply_filter,
            "rejected_by_reason": MetadataValue.json(result.rejected),
            "manifest": MetadataValue.path(f"{workspace.uri}/{filtered_key(context.partition_key)}"),
        }
    )


@asset(
    group_name=OUTPUT_GROUP,
    partitions_def=work_groups,
    deps=[VLM_OCR_OUTPUTS],
    kinds={"jsonl"},
    tags={"stage": "output", "format": "dolma"},
    metadata=definition_metadata("dolma_shards"),
)
def dolma_shards(
    context: AssetExecutionContext, pipeline_config: PipelineConfig, workspace_s3: S3ClientResource
) -> MaterializeResult:
    """The group's Dolma shard, optional Markdown, and its rejection ledger: every input lands in one.

    The group is marked done (done/<group>.json) only after all of them are written.
    """
    group = context.partition_key
    step = open_step(pipeline_config, workspace_s3, group=group)
    settings, workspace = step.settings, step.workspace
    result = build_group_shard(
        workspace, group, max_page_error_rate=settings.max_page_error_rate, markdown=settings.markdown
    )
    # Tokens only when the engine spent any: the CPU engine reports none, and a line of zeros says nothing.
    tokens = {"input_tokens": result.input_tokens, "output_tokens": result.output_tokens}
    preview = {"first_document": text_preview(result.first_source, result.first_text)} if result.first_source else {}
    return MaterializeResult(
        metadata={
            # inputs_accounted = documents + rejected: every input of the group ends in exactly one of them.
            "inputs_accounted": result.inputs,
            "documents": result.documents,
            **rejections_metadata(result.ledger),
            "pages": result.pages,
            "characters": result.characters,
            "fallback_pages": result.fallback_pages,
            **(tokens if any(tokens.values()) else {}),
            "rejected_by_reason": MetadataValue.json(result.rejected),
            **preview,
            "shard": MetadataValue.path(f"{workspace.uri}/{dolma_key(group)}"),
            "ledger": MetadataValue.path(f"{workspace.uri}/{rejected_key(group)}"),
            **viewer_metadata(workspace.uri, group),
        }
    )


# page_images and vlm_ocr_outputs are one op, render_and_ocr (defs/render_ocr.py).
ALL_ASSETS = [pdf_inventory, filtered_pdfs, render_and_ocr, dolma_shards]
