"""S3 clients are handed down, never guessed: below the entry points nothing builds one from the environment."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ocr_pipeline.defs.resources import S3ClientResource
from ocr_pipeline.inputs.fetch import open_input
from ocr_pipeline.inputs.s3_listing import list_s3_inputs
from ocr_pipeline.inputs.specs import resolve_inputs
from ocr_pipeline.workspace.s3 import MissingS3Client
from ocr_pipeline.workspace.storage import LocalWorkspace, open_workspace

PACKAGE = Path(__file__).resolve().parents[2] / "ocr_pipeline"
# The processes' entry points: the only modules that turn role variables into a client themselves.
ENTRY_POINTS = {"cli.py", "eval_command.py", "worker.py", "local_run.py"}


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Credentials a silent fallback would pick up: a missing client must still be an error."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": "AKIA",
        "AWS_SECRET_ACCESS_KEY": "secret",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": "http://127.0.0.1:9",
        "OCR_PIPELINE_INPUT_ENDPOINT_URL": "http://127.0.0.1:9",
    }.items():
        monkeypatch.setenv(name, value)


@pytest.mark.usefixtures("aws_env")
def test_an_s3_uri_without_a_client_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(MissingS3Client, match="s3://ws/run.*workspace_s3"):
        open_workspace("s3://ws/run", None)
    with pytest.raises(MissingS3Client, match="s3://in/docs/.*input_s3"):
        next(list_s3_inputs("s3://in/docs/", None))
    with pytest.raises(MissingS3Client, match="input_s3"):
        next(resolve_inputs(["s3://in/docs/"]))
    workspace = LocalWorkspace(tmp_path)
    with pytest.raises(MissingS3Client, match="s3://in/a.pdf"), open_input("s3://in/a.pdf", workspace, None):
        pass


def test_local_paths_need_no_client(tmp_path: Path) -> None:
    assert isinstance(open_workspace(str(tmp_path / "ws"), None), LocalWorkspace)
    (tmp_path / "a.pdf").write_bytes(b"%PDF-1.4")
    with open_input(str(tmp_path / "a.pdf"), LocalWorkspace(tmp_path / "ws"), None) as path:
        assert Path(path).read_bytes() == b"%PDF-1.4"


def test_the_resource_builds_its_client_only_for_s3(tmp_path: Path) -> None:
    # boto3 refuses an unknown profile when it builds the client: a local workspace never gets that far.
    resource = S3ClientResource(profile_name="no-such-profile-anywhere")
    workspace = resource.open_workspace(str(tmp_path / "ws"))
    assert isinstance(workspace, LocalWorkspace) and resource.client_for(str(tmp_path), "/data/x.pdf") is None
    with pytest.raises(Exception, match="no-such-profile-anywhere"):
        resource.open_workspace("s3://bucket/ws")


def test_only_entry_points_build_clients_from_the_environment() -> None:
    builders = re.compile(r"(?<![.\w])(client_from_env|env_client_for)\(")
    callers = set()
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).as_posix() == "workspace/s3.py":
            continue  # where they are defined
        for line in path.read_text().splitlines():
            if builders.search(line) and not line.lstrip().startswith("def "):
                callers.add(path.relative_to(PACKAGE).as_posix())
    assert callers <= ENTRY_POINTS, callers - ENTRY_POINTS
