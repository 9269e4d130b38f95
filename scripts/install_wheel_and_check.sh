#!/usr/bin/env bash
# Build the wheel, install it into a fresh venv, and from a folder outside the checkout load the code location and
# run `ocr-pipeline run` on a bundled sample to a Dolma shard. `.ci/run` runs this, and so does the Dockerfile, so
# the image is built by exactly the steps CI checks.
#   scripts/install_wheel_and_check.sh VENV [PYTHON]
set -euo pipefail
VENV=${1:?usage: install_wheel_and_check.sh VENV [PYTHON]}
PY=${2:-${PYTHON:-python3}}
SRC=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# 1. The wheel, and what it carries: the package with its data, no test code.
"$PY" -m pip wheel --no-deps --quiet --disable-pip-version-check -w "$SCRATCH/dist" "$SRC"
WHEEL=$(ls "$SCRATCH"/dist/ocr_pipeline-*.whl)
"$PY" - "$WHEEL" <<'PYCHECK'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["ocr_pipeline/checks/dbt_like_checks/dolma_shards.yml", "ocr_pipeline/checks/dbt_like_checks/tests/unique_pages.sql",
        "ocr_pipeline/launch/k8s/ocr-pod-template.yaml",
        "ocr_pipeline/samples/born_digital_report.pdf", "ocr_pipeline/py.typed", "ocr_pipeline/canary/pages/tests.jsonl",
        "ocr_pipeline/canary/pages/pdfs/scan_text_14.pdf", "ocr_pipeline/canary/pages/reference/table_grid_8.md",
        "ocr_pipeline/regions/layout_cdla.onnx", "ocr_pipeline/regions/MODEL.md", "ocr_pipeline/regions/LICENSE"]
missing = [n for n in need if n not in names]
tests = [n for n in names if n.startswith(("tests/", "benchmarks/")) or "/testing/" in n]
if missing or tests:
    sys.exit(f"wheel: missing {missing}, test code {tests}")
print(f"wheel: {len(names)} files, package data present, no test code")
PYCHECK

# 2. A fresh venv with the wheel (and its pinned dependencies) installed.
"$PY" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "$WHEEL"

# 3. From outside the checkout: the code location loads and the CLI turns a bundled sample into Dolma.
cd "$SCRATCH"
# `defs()`: the code location is lazy (`@definitions`); calling it builds every asset and check as Dagster does.
"$VENV/bin/python" -c "import ocr_pipeline.worker, ocr_pipeline.defs.definitions as location; location.defs()"
SAMPLE=$("$VENV/bin/python" -c "from ocr_pipeline.settings import samples_dir; print(samples_dir() / 'born_digital_report.pdf')")
CHECKS=$("$VENV/bin/python" -c "from ocr_pipeline.checks.spec import shipped_checks_dir as d; print(d())")
CANARY=$("$VENV/bin/python" -c "from ocr_pipeline.canary.bench_set import shipped_tests_file as f; print(f())")
for path in "$SAMPLE" "$CHECKS" "$CANARY"; do
  case "$path" in "$SRC"/*) echo "the installed package reads from the checkout: $path" >&2; exit 1 ;; esac
done
# The data tests the build mapped in from the repository's dbt_like_checks/ (YAML and singular SQL) load from the
# installed copy, every query bound by DuckDB.
"$VENV/bin/python" -c "from ocr_pipeline.checks.spec import load_dir, shipped_checks_dir as d; t = load_dir(d()).tests; assert any(s.type == 'singular' for v in t.values() for s in v)"
# The model canary's pages and tests load from the installed copy (every PDF a test names is there).
"$VENV/bin/python" -c "from ocr_pipeline.canary.bench_set import load_bench_set as l, shipped_tests_file as f; assert len(l(f()).pages) == 32"
# The layout model loads from the installed copy and finds nothing on a blank page.
"$VENV/bin/python" -c "from PIL import Image; from ocr_pipeline.regions.detector import RegionDetector as D; assert D().furniture(Image.new('RGB', (600, 800), 'white')) == []"
"$VENV/bin/ocr-pipeline" run "$SCRATCH/ws" --pdfs "$SAMPLE" --quiet
"$VENV/bin/python" - "$SCRATCH/ws/dolma/g000001.jsonl.gz" <<'PYCHECK'
import gzip, json, sys
docs = [json.loads(line) for line in gzip.open(sys.argv[1], "rt")]
assert len(docs) == 1 and "river valley" in docs[0]["text"], docs
print(f"installed wheel: 1 document, {len(docs[0]['text'])} characters")
PYCHECK
