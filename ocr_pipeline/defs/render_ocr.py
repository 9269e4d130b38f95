"""page_images and vlm_ocr_outputs: two assets, one op. When a run selects both, pages stream from the renderer to
the engine inside this one function; either asset can still be materialized alone."""

from collections.abc import Iterator

from dagster import (
    AssetExecutionContext,
    AssetKey,
    AssetSpec,
    Config,
    MaterializeResult,
    MetadataValue,
    ResourceParam,
    multi_asset,
)
from pydantic import Field

from ocr_pipeline.defs.catalog import OCR_GROUP, definition_metadata
from ocr_pipeline.defs.page_gate import failed_blocking_checks
from ocr_pipeline.defs.partition_metadata import rejections_metadata, viewer_metadata
from ocr_pipeline.defs.partitions import work_groups
from ocr_pipeline.defs.resources import PipelineConfig, S3ClientResource
from ocr_pipeline.defs.step_inputs import StepInputs, open_step
from ocr_pipeline.engines.factory import text_layer_kind
from ocr_pipeline.launch.ocr_step import run_ocr_step
from ocr_pipeline.progress import LoggingProgress, NullProgress, ProgressSink
from ocr_pipeline.stages.ocr_stream import GroupStream, open_group_stream, streams_pages
from ocr_pipeline.stages.page_images import expected_pages, render_group
from ocr_pipeline.workspace.keys import pages_key

PAGE_IMAGES = AssetKey("page_images")
VLM_OCR_OUTPUTS = AssetKey("vlm_ocr_outputs")
# Definition metadata, not a materialization's: the price is a setting, the same on every run, so never plotted.
COST_NOTE = (
    "usd_per_million_pages = OCR_PIPELINE_HOURLY_COST_USD x the wall-clock seconds per page the engine read. "
    "Pages from the memo cost nothing: a rerun served entirely from it reports 0 and says so in cost_basis. "
    "Without a price set, no cost is reported."
)


class RenderOcrConfig(Config):
    """Run config of the render-and-OCR op."""

    stream_pages: bool = Field(
        default=True,
        description="with a VLM server and both assets selected, send each page while it renders "
        "(the CLI sets it from OCR_PIPELINE_STREAM_PAGES)",
    )


def _visible(progress: ProgressSink, context: AssetExecutionContext) -> ProgressSink:
    """Without a terminal bar (the UI, a daemon run), progress goes to the step's log: a line 2 s into each phase,
    then every few seconds, sparser as the phase runs long, at most 60 lines a step (see LoggingProgress)."""
    return LoggingProgress(context.log.info) if isinstance(progress, NullProgress) else progress


def _render(
    context: AssetExecutionContext, step: StepInputs, progress: ProgressSink, stream: GroupStream | None
) -> MaterializeResult:
    """Render the group's pages, each handed to the stream as it is written; page_images' materialization."""
    group, settings, workspace = context.partition_key, step.settings, step.workspace
    progress.phase(f"render {group}", expected_pages(workspace, group))
    try:
        result = render_group(
            workspace,
            group,
            settings.target_longest_image_dim,
            progress.advance,
            step.input_client(),
            on_page=stream.offer_row if stream else None,
            text_layer=text_layer_kind(settings),
            pdf_memory_mb=settings.pdf_memory_mb,
        )
    except BaseException:
        if stream is not None:
            stream.close()  # the answers already streamed wait in the memo for the group's rerun
        raise
    return MaterializeResult(
        asset_key=PAGE_IMAGES,
        metadata={
            "documents": result.documents,
            "pages": result.pages,
            "page_render_errors": result.page_errors,
            "trusted_text_layer_pages": result.trusted_text_pages,
            "png_megabytes": round(result.png_bytes / 1e6, 2),
            **rejections_metadata(result.rejections),
            "rejected_by_reason": MetadataValue.json(result.rejected),
            "pages_file": MetadataValue.path(f"{workspace.uri}/{pages_key(group)}"),
            **viewer_metadata(workspace.uri, group),
        },
    )


# The "gpu" pool caps how many partitions talk to the GPU server at once (set its limit in the instance). A pool
# belongs to an op, so the slot is held from the first rendered page: with streaming, that is when the op starts
# sending to the server.
@multi_asset(
    name="render_and_ocr",
    specs=[
        AssetSpec(
            PAGE_IMAGES,
            deps=["filtered_pdfs"],
            description="Every page of the group's kept inputs as a PNG (longest side target_longest_image_dim) "
            "with its text layer.",
            group_name=OCR_GROUP,
            partitions_def=work_groups,
            kinds={"pdf", "parquet"},
            tags={"stage": "render"},
            metadata=definition_metadata("page_images"),
        ),
        AssetSpec(
            VLM_OCR_OUTPUTS,
            deps=[PAGE_IMAGES],
            description="Each page's text and attributes from the OCR engine (VLM server, or the CPU engine), "
            "memoised per page: a rerun reads again only the pages it has no answer for.",
            group_name=OCR_GROUP,
            partitions_def=work_groups,
            kinds={"parquet"},
            tags={"stage": "ocr"},
            metadata=definition_metadata("vlm_ocr_outputs", {"cost": MetadataValue.text(COST_NOTE)}),
            # Not materialized when a blocking check of page_images fails in the same run (see page_gate).
            skippable=True,
        ),
    ],
    can_subset=True,
    pool="gpu",
)
def render_and_ocr(
    context: AssetExecutionContext,
    config: RenderOcrConfig,
    pipeline_config: PipelineConfig,
    progress: ResourceParam[ProgressSink],
    workspace_s3: S3ClientResource,
    input_s3: S3ClientResource,
) -> Iterator[MaterializeResult]:
    """Render the group's pages and read them with the engine; each asset's materialization as soon as it is done.

    page_images is reported the moment rendering ends (the CLI starts its next group on that event), while the
    engine's last answers are still coming back.
    """
    step = open_step(pipeline_config, workspace_s3, group=context.partition_key, input_s3=input_s3)
    visible = _visible(progress, context)
    try:
        yield from _render_then_ocr(context, config, step, visible)
    finally:
        if isinstance(visible, LoggingProgress):
            visible.close()  # the last phase's closing line, also when it ended short of its pages or failed


def _render_then_ocr(
    context: AssetExecutionContext, config: RenderOcrConfig, step: StepInputs, progress: ProgressSink
) -> Iterator[MaterializeResult]:
    """The op's body: page_images' materialization when rendering ends, then vlm_ocr_outputs' when OCR does."""
    settings, workspace = step.settings, step.workspace
    render, ocr = PAGE_IMAGES in context.selected_asset_keys, VLM_OCR_OUTPUTS in context.selected_asset_keys
    stream = None
    if render:
        if ocr and streams_pages(settings, config.stream_pages):
            stream = open_group_stream(workspace, settings)
        yield _render(context, step, progress, stream)
        failed = failed_blocking_checks(context, PAGE_IMAGES, workspace) if ocr else []
        if failed:
            if stream is not None:
                stream.close()
            context.log.warning(f"vlm_ocr_outputs not materialized: blocking checks of page_images fail: {failed}")
            return
    if ocr:
        # The UI marks page_images materialized from the event just yielded; this line says what the step, still
        # running, is busy with now (the Pipes worker's own progress lines follow from its process).
        done = "page_images materialized; " if render else ""
        context.log.info(f"{done}vlm_ocr_outputs running for {context.partition_key}")
        metadata = run_ocr_step(context, settings, progress, workspace, stream, step.input_client())
        yield MaterializeResult(asset_key=VLM_OCR_OUTPUTS, metadata=metadata)
