"""dbt's singular tests: a `.sql` file in the checks folder's `tests/` whose query returns the failing rows.

Its leading comment lines name its asset and may set how it gates; the check's name is the file's stem:

    -- asset: vlm_ocr_outputs
    -- blocking: true
    -- severity: warn
    -- description: each page of each input has one result
    SELECT source, page_num, count(*) AS results FROM vlm_ocr_outputs GROUP BY ALL HAVING count(*) > 1
"""

from __future__ import annotations

import re
from pathlib import Path

from ocr_pipeline.checks.declared import CHECKED_ASSETS, ChecksConfigError, TestSpec, check_name

# The folder of singular tests inside a checks folder, as dbt's project has it.
SINGULAR_DIR = "tests"
HEADER = re.compile(r"^\s*--\s*([A-Za-z_]+)\s*:\s*(.*?)\s*$")
KEYS = {"asset", "severity", "blocking", "description", "max_failing"}


def singular_files(directory: Path) -> list[Path]:
    """The singular tests of a checks folder, in name order."""
    return sorted((directory / SINGULAR_DIR).glob("*.sql"))


def load_singular(path: Path) -> TestSpec:
    """One `.sql` file as a test; a header it cannot use fails with the file and line."""
    text = path.read_text(encoding="utf-8")
    settings: dict[str, tuple[str, int]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if not line.lstrip().startswith("--"):
            break
        found = HEADER.match(line)
        if found is None:
            continue  # a comment in prose
        key, value = found.group(1).lower(), found.group(2)
        if key not in KEYS:
            raise ChecksConfigError(f"{path}:{number}: unknown setting {key!r} (known: {', '.join(sorted(KEYS))})")
        if key in settings:
            raise ChecksConfigError(f"{path}:{number}: {key!r} is set twice (first on line {settings[key][1]})")
        settings[key] = (value, number)
    if "asset" not in settings:
        known = ", ".join(CHECKED_ASSETS)
        raise ChecksConfigError(f"{path}:1: a singular test starts with `-- asset: <name>` (one of {known})")
    asset, asset_line = settings["asset"]
    if asset not in CHECKED_ASSETS:
        known = ", ".join(CHECKED_ASSETS)
        raise ChecksConfigError(f"{path}:{asset_line}: unknown or unpartitioned asset {asset!r} (one of {known})")
    severity, severity_line = settings.get("severity", ("error", asset_line))
    blocking_text, blocking_line = settings.get("blocking", ("false", asset_line))
    if severity not in {"warn", "error"}:
        raise ChecksConfigError(f"{path}:{severity_line}: severity must be `warn` or `error`, not {severity!r}")
    if blocking_text.lower() not in {"true", "false"}:
        raise ChecksConfigError(f"{path}:{blocking_line}: blocking must be true or false")
    blocking = blocking_text.lower() == "true"
    if blocking and severity == "warn":
        raise ChecksConfigError(f"{path}:{blocking_line}: a warning cannot block: use `severity: error`")
    params: dict[str, object] = {"sql": text}
    if "max_failing" in settings:
        value, number = settings["max_failing"]
        if not value.isdigit():
            raise ChecksConfigError(f"{path}:{number}: max_failing must be a whole number")
        params["max_failing"] = int(value)
    return TestSpec(
        asset=asset,
        type="singular",
        name=check_name(path.stem),
        params=params,
        severity=severity,
        blocking=blocking,
        description=settings.get("description", ("", 0))[0],
        file=str(path),
        line=asset_line,
    )
