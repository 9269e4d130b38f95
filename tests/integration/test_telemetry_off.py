"""Third-party telemetry off: the CPU engine's onnxruntime writes no device id or event store anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# A page with a line of text, so detection and recognition sessions both run.
SCRIPT = """
from PIL import Image, ImageDraw
from ocr_pipeline.engines.cpu.cpu_engine import CpuEngine
image = Image.new("RGB", (600, 120), "white")
ImageDraw.Draw(image).text((20, 40), "Telemetry stays off", fill="black", font_size=32)
print(CpuEngine(threads=1).ocr_image(image)["text"])
"""


def test_onnxruntime_leaves_no_files_in_home_or_tmpdir(tmp_path: Path) -> None:
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), TMPDIR=str(tmp))
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    # Without the switch onnxruntime writes ~/.cache/Microsoft/DeveloperTools/.onnxruntime/{deviceid,
    # onnxruntime.db} and $TMPDIR/.ses (checked by hand against onnxruntime 1.32).
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == ["home", "tmp"]
