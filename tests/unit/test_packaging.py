"""The package is self-contained: its data is read with importlib.resources, and the image is built by CI's steps."""

from __future__ import annotations

import re
from pathlib import Path

from ocr_pipeline.checks.spec import shipped_checks_dir
from ocr_pipeline.launch.k8s.config import DEFAULT_TEMPLATE
from ocr_pipeline.settings import samples_dir

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "ocr_pipeline"
SCRIPT = "scripts/install_wheel_and_check.sh"


def test_package_data_lives_inside_the_package() -> None:
    for path in (shipped_checks_dir(), Path(DEFAULT_TEMPLATE), samples_dir()):
        assert path.exists() and PACKAGE in path.resolve().parents, path
    assert list(shipped_checks_dir().glob("*.yml"))


def test_nothing_in_the_package_reaches_outside_it() -> None:
    # Paths built from __file__ break once the package is installed as a wheel: importlib.resources instead.
    offenders = [
        str(p.relative_to(REPO))
        for p in PACKAGE.rglob("*.py")
        if re.search(r"__file__|\.parents\[", p.read_text())
    ]
    assert offenders == []


def test_the_dockerfile_and_ci_install_the_wheel_with_the_same_script() -> None:
    dockerfile = (REPO / "Dockerfile").read_text()
    ci = (REPO / ".ci" / "run").read_text()
    run_lines = [line for line in dockerfile.splitlines() if line.startswith("RUN ")]
    assert any(SCRIPT in line for line in run_lines), run_lines
    assert re.search(rf"^{re.escape(SCRIPT)} ", ci, re.M)
    # The image installs nothing else of the project: no `pip install .` beside the checked script.
    assert not any(re.search(r"pip install (\.|-e)", line) for line in run_lines)
    script = (REPO / SCRIPT).read_text()
    for step in ("pip wheel --no-deps", 'pip" install', "import ocr_pipeline.worker, ocr_pipeline.defs.definitions"):
        assert step in script, step


# Imported by the package but installed by a declared dependency, or optional with a lazy import.
TRANSITIVE = {"pydantic": "dagster", "botocore": "boto3"}
OPTIONAL = {"pdf2image"}


def test_every_third_party_import_is_a_runtime_dependency() -> None:
    # A dev-only package imported by the product passes the editable checkout's tests and breaks the wheel.
    import ast
    import sys
    from importlib.metadata import packages_distributions

    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = {re.split(r"[=<>\[ ]", d)[0].lower().replace("_", "-") for d in project["dependencies"]}
    to_dist = packages_distributions()
    missing = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in ("ocr_pipeline", "__future__") or top in OPTIONAL:
                    continue
                dists = {d.lower().replace("_", "-") for d in to_dist.get(top, [top])}
                if not dists & declared and TRANSITIVE.get(top) not in declared:
                    missing.add(f"{top} ({path.relative_to(REPO)})")
    assert sorted(missing) == []
