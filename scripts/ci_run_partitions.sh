#!/usr/bin/env bash
# Run the pipeline from CI with Dagster's own CLI: scan, then one `dagster job execute` per pending group.
# Settings come from the environment: OCR_PIPELINE_WORKSPACE, OCR_PIPELINE_PDFS (and the other
# OCR_PIPELINE_* variables), AWS_* for S3, DAGSTER_HOME for the instance that keeps the partitions.
set -euo pipefail
PY=${PYTHON:-python3}
DEFS=(-m ocr_pipeline.defs.definitions -a defs)
: "${OCR_PIPELINE_WORKSPACE:?set OCR_PIPELINE_WORKSPACE}"
: "${DAGSTER_HOME:?set DAGSTER_HOME (a folder: the instance that remembers the partitions)}"
mkdir -p "$DAGSTER_HOME"

"$PY" -m dagster job execute "${DEFS[@]}" -j inventory_job
for group in $("$PY" -m ocr_pipeline.cli pending "$OCR_PIPELINE_WORKSPACE"); do
  echo "== partition $group"
  "$PY" -m dagster job execute "${DEFS[@]}" -j ocr_job --tags "{\"dagster/partition\": \"$group\"}" || true
done
left=$("$PY" -m ocr_pipeline.cli pending "$OCR_PIPELINE_WORKSPACE")
if [ -n "$left" ]; then
  echo "groups without a shard after the run: $left" >&2
  exit 1
fi
echo "every group has its Dolma shard"
