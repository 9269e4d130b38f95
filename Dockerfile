# The code-location image: the gRPC server the Helm chart runs, and the image of run, step and OCR worker pods.
#   docker build -t ocr-pipeline:0.1.0 .
# It installs the wheel with scripts/install_wheel_and_check.sh, the same script `.ci/run` checks the wheel with.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH

# A fixed uid: the pod templates run as 1000 with runAsNonRoot.
RUN groupadd --gid 1000 ocr && useradd --uid 1000 --gid 1000 --create-home --home-dir /home/ocr ocr

WORKDIR /src
COPY pyproject.toml README.md ./
COPY ocr_pipeline ./ocr_pipeline
# The shipped data tests: pyproject.toml maps this folder into the package at build time.
COPY dbt_like_checks ./dbt_like_checks
COPY scripts/install_wheel_and_check.sh ./scripts/
# Builds the wheel, installs it into /opt/venv, loads the code location and runs a sample to Dolma from outside
# the source folder; then the source goes, so nothing can be read from it at run time.
RUN scripts/install_wheel_and_check.sh /opt/venv python && rm -rf /src

WORKDIR /home/ocr
USER 1000:1000
ENV HOME=/home/ocr
# The Helm chart overrides this with `dagster api grpc ...`; run and step pods get their own command.
CMD ["dagster", "api", "grpc", "-m", "ocr_pipeline.defs.definitions", "-a", "defs", "-h", "0.0.0.0", "-p", "3030"]
