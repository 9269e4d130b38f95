# The code-location image: the gRPC server the Helm chart runs, and the image of run, step and OCR worker pods.
#   docker build -t ocr-pipeline:0.1.0 .
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    OCR_PIPELINE_K8S_TEMPLATE=/app/k8s/ocr-pod-template.yaml

# A fixed uid: the pod templates run as 1000 with runAsNonRoot.
RUN groupadd --gid 1000 ocr && useradd --uid 1000 --gid 1000 --create-home --home-dir /home/ocr ocr

WORKDIR /app
COPY pyproject.toml README.md ./
COPY ocr_pipeline ./ocr_pipeline
RUN pip install . && python -c "import ocr_pipeline.worker, ocr_pipeline.defs.definitions"
COPY k8s ./k8s

USER 1000:1000
ENV HOME=/home/ocr
# The Helm chart overrides this with `dagster api grpc ...`; run and step pods get their own command.
CMD ["dagster", "api", "grpc", "-m", "ocr_pipeline.defs.definitions", "-a", "defs", "-h", "0.0.0.0", "-p", "3030"]
