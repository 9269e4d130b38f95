"""The pipeline's assets: inventory, then per work group filter → render → OCR → Dolma shards."""

from dagster import (
    AssetExecutionContext,
    Config,
    MaterializeResult,
    MetadataValue,
    ResourceParam,
    asset,
)

from ocr_pipeline.defs.partitions import work_groups
from ocr_pipeline.defs.resources import PipelineConfig, S3ClientResource, client_if_s3
from ocr_pipeline.launch.ocr_step import run_ocr_step
from ocr_pipeline.launch.render_stream import end_render_stream, start_render_stream
from ocr_pipeline.progress import LoggingProgress, NullProgress, ProgressSink
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.dolma_shards import build_group_shard
from ocr_pipeline.stages.filtered_pdfs import filter_group
from ocr_pipeline.stages.page_images import expected_pages, render_group
from ocr_pipeline.stages.pdf_inventory import list_groups, scan_inputs
from ocr_pipeline.workspace.keys import dolma_key, filtered_key, pages_key, rejected_key
from ocr_pipeline.workspace.storage import Workspace, open_workspace

MAX_COMFORTABLE_PARTITIONS = 10_000


class InventoryConfig(Config):
    """Run config of one scan: the sources to scan this time (a schedule per source sets it)."""

    pdfs: list[str] = []


def _visible(progress: ProgressSink, context: AssetExecutionContext) -> ProgressSink:
    """Without a terminal bar (the UI, a daemon run), progress goes to the step's log every 30 s."""
    return LoggingProgress(context.log.info) if isinstance(progress, NullProgress) else progress


def _workspace(settings: PipelineSettings, workspace_s3: S3ClientResource) -> Workspace:
    return open_workspace(settings.workspace, client_if_s3(workspace_s3, settings.workspace))


@asset(group_name="ocr", kinds={"python"})
def pdf_inventory(
    context: AssetExecutionContext,
    config: InventoryConfig,
    pipeline_config: PipelineConfig,
    workspace_s3: S3ClientResource,
    input_s3: S3ClientResource,
) -> MaterializeResult:
    """Every input found in the sources, with size, hash and page count, packed into work groups."""
    settings = pipeline_config.settings()
    specs = config.pdfs or settings.pdfs
    workspace = _workspace(settings, workspace_s3)
    input_client = client_if_s3(input_s3, *specs)
    result = scan_inputs(
        specs,
        workspace,
        settings.pages_per_group,
        input_client=input_client,
        max_archive_bytes=settings.max_archive_bytes,
        follow_external_links=settings.follow_external_links,
    )
    groups = list_groups(workspace)
    registered = set(context.instance.get_dynamic_partitions(work_groups.name))
    missing = [g for g in groups if g not in registered]
    if missing:
        # Groups formed by an earlier scan (or another instance) are registered too, so none is orphaned.
        context.instance.add_dynamic_partitions(work_groups.name, missing)
    context.log.info(f"{result.new_inputs} new inputs in {len(result.new_groups)} new groups")
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
            "new_groups": MetadataValue.json(result.new_groups),
            "total_groups": len(groups),
            "already_known_inputs": result.already_known,
            "rejected_by_reason": MetadataValue.json(result.rejected),
            "workspace": MetadataValue.path(workspace.uri),
        }
    )


@asset(group_name="ocr", partitions_def=work_groups, deps=[pdf_inventory], kinds={"python"})
def filtered_pdfs(
    context: AssetExecutionContext,
    pipeline_config: PipelineConfig,
    workspace_s3: S3ClientResource,
    input_s3: S3ClientResource,
) -> MaterializeResult:
    """The group's inputs that pass the language, form and spam filters (the rest are rejections)."""
    settings = pipeline_config.settings()
    workspace = _workspace(settings, workspace_s3)
    input_client = client_if_s3(input_s3, *settings.pdfs)
    result = filter_group(workspace, context.partition_key, settings.apply_filter, input_client)
    return MaterializeResult(
        metadata={
            "kept": result.kept,
            "inputs_read": result.probed,
            "filter_applied": settings.apply_filter,
            "rejected_by_reason": MetadataValue.json(result.rejected),
            "manifest": MetadataValue.path(f"{workspace.uri}/{filtered_key(context.partition_key)}"),
        }
    )


@asset(group_name="ocr", partitions_def=work_groups, deps=[filtered_pdfs], kinds={"python"})
def page_images(
    context: AssetExecutionContext,
    pipeline_config: PipelineConfig,
    progress: ResourceParam[ProgressSink],
    workspace_s3: S3ClientResource,
    input_s3: S3ClientResource,
) -> MaterializeResult:
    """Every page of the group's kept inputs as a PNG (longest side target_longest_image_dim) with its text layer."""
    settings = pipeline_config.settings()
    workspace = _workspace(settings, workspace_s3)
    progress = _visible(progress, context)
    progress.phase(f"render {context.partition_key}", expected_pages(workspace, context.partition_key))
    input_client = client_if_s3(input_s3, *settings.pdfs)
    # With a VLM server, pages leave for it as they render; vlm_ocr_outputs collects the answers.
    # Only a run that also executes vlm_ocr_outputs collects what is streamed (a render-only run sends nothing).
    ocr_runs_next = vlm_ocr_outputs.key in context.job_def.asset_layer.executable_asset_keys
    stream = start_render_stream(settings, workspace, context.partition_key, ocr_runs_next)
    rendered = False
    try:
        result = render_group(
            workspace,
            context.partition_key,
            settings.target_longest_image_dim,
            progress.advance,
            input_client,
            on_page=stream.offer_row if stream else None,
        )
        rendered = True
    finally:
        end_render_stream(workspace, context.partition_key, stream, rendered)
    progress.milestone("rendered")
    return MaterializeResult(
        metadata={
            "documents": result.documents,
            "pages": result.pages,
            "page_render_errors": result.page_errors,
            "trusted_text_layer_pages": result.trusted_text_pages,
            "png_megabytes": round(result.png_bytes / 1e6, 2),
            "rejected_by_reason": MetadataValue.json(result.rejected),
            "pages_file": MetadataValue.path(f"{workspace.uri}/{pages_key(context.partition_key)}"),
        }
    )


# The "gpu" pool caps how many partitions talk to the GPU server at once (set its limit in the instance).
@asset(group_name="ocr", partitions_def=work_groups, deps=[page_images], kinds={"python"}, pool="gpu")
def vlm_ocr_outputs(
    context: AssetExecutionContext,
    pipeline_config: PipelineConfig,
    progress: ResourceParam[ProgressSink],
    workspace_s3: S3ClientResource,
) -> MaterializeResult:
    """Each page's text and attributes from the OCR engine (VLM server, or the CPU engine without one)."""
    settings = pipeline_config.settings()
    return run_ocr_step(context, settings, _visible(progress, context), _workspace(settings, workspace_s3))


@asset(group_name="ocr", partitions_def=work_groups, deps=[vlm_ocr_outputs], kinds={"python"})
def dolma_shards(
    context: AssetExecutionContext, pipeline_config: PipelineConfig, workspace_s3: S3ClientResource
) -> MaterializeResult:
    """The group's Dolma shard, optional Markdown, and its rejection ledger: every input lands in one."""
    settings = pipeline_config.settings()
    workspace = _workspace(settings, workspace_s3)
    group = context.partition_key
    result = build_group_shard(
        workspace, group, max_page_error_rate=settings.max_page_error_rate, markdown=settings.markdown
    )
    return MaterializeResult(
        metadata={
            "documents": result.documents,
            "pages": result.pages,
            "characters": result.characters,
            "fallback_pages": result.fallback_pages,
            "input_tokens": result.input_tokens,
            "output_tokens": result.output_tokens,
            "inputs_accounted": result.inputs,
            "rejected_by_reason": MetadataValue.json(result.rejected),
            "shard": MetadataValue.path(f"{workspace.uri}/{dolma_key(group)}"),
            "ledger": MetadataValue.path(f"{workspace.uri}/{rejected_key(group)}"),
        }
    )


ALL_ASSETS = [pdf_inventory, filtered_pdfs, page_images, vlm_ocr_outputs, dolma_shards]
