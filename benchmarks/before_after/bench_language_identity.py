"""The language detector's labels on real text, one checkout's code beside another's: the same labels, or which.

    .venv/bin/python -m benchmarks.before_after.bench_language_identity --base ../before [--data DIR]

Every page's plain text layer (pdfium) of every PDF under --data, whole and cut to 60, 300 and 3,000 characters
(short texts are where langdetect's sampling differs most), goes through the three callers' functions: the CPU
engine's `detect_language`, the input filter's language check (`check_text`: its decision, whose detail names the
language and probability) and the wrong-language signal's `detected_language`. Each checkout runs in its own
process (its code first on sys.path), and the labels are compared text by text.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pypdfium2 as pdfium

from benchmarks.common.tools import REPO
from tests.support.shared_data import SHARED_DATA

CUTS = (60, 300, 3000, None)

_LABELS = r"""
import json, sys
from ocr_pipeline.engines.cpu import detect_language
from ocr_pipeline.pdf.filters import check_text
from ocr_pipeline.quality.wrong_language import detected_language
texts = json.loads(sys.stdin.read())
out = [[detect_language(t), repr(check_text(t)), repr(detected_language(t))] for t in texts]
print(json.dumps(out))
"""


def page_texts(data: Path) -> list[str]:
    """Each page's plain text layer, cut to each of CUTS, for every PDF under `data` (unreadable ones skipped)."""
    texts: list[str] = []
    for path in sorted(data.rglob("*.pdf")):
        try:
            doc = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError:
            continue
        try:
            for index in range(min(len(doc), 50)):
                page = doc[index]
                text = page.get_textpage().get_text_range()
                page.close()
                if text.strip():
                    texts += [text[:cut] for cut in CUTS]
        finally:
            doc.close()
    return texts


def labels(tree: Path, texts: list[str]) -> list[list[str | None]]:
    """The three callers' answers on each text, computed by the code of `tree`."""
    code = f"import sys; sys.path.insert(0, {str(tree)!r})\n" + _LABELS
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(texts), capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{tree}: {done.stderr.strip().splitlines()[-1]}")
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    """Print how many texts were judged and how many labels differ per caller; 1 when any differs."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True, help="the checkout to compare with (e.g. main's)")
    ap.add_argument("--tree", type=Path, default=REPO)
    ap.add_argument("--data", type=Path, default=SHARED_DATA)
    args = ap.parse_args(argv)
    texts = page_texts(args.data)
    old, new = labels(args.base, texts), labels(args.tree, texts)
    callers = ("cpu engine detect_language", "filters check_text", "wrong_language detected_language")
    print("| caller | texts | different | languages seen |\n| --- | --- | --- | --- |")
    differ = 0
    for i, name in enumerate(callers):
        diff = sum(a[i] != b[i] for a, b in zip(old, new, strict=True))
        differ += diff
        seen = len({a[i] for a in old})
        print(f"| {name} | {len(texts)} | {diff} | {seen} |")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
