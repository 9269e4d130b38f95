"""Where the OCR worker runs: in-process, a Dagster Pipes subprocess, a GPU pod on Kubernetes; vLLM servers."""
