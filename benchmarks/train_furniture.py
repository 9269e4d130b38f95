"""A learned furniture scorer trained on the tuning part, beside the rules, line by line on both parts.

    .venv/bin/python -m benchmarks.furniture_lines --out /tmp/furniture-lines.jsonl      # the labelled lines
    .venv/bin/pip install scikit-learn                                                   # not a dependency
    .venv/bin/python -m benchmarks.train_furniture --lines /tmp/furniture-lines.jsonl [--stacked]

Lines come from benchmarks/furniture_lines.py, features from benchmarks/furniture_features.py; only a page's lines
near an edge (`is_candidate`) are learned and scored. scikit-learn's GradientBoostingClassifier fits shallow trees
on the tuning part; the threshold is the one that maximises F1 in grouped cross-validation there (folds by PDF).
The check part is never fitted on: its precision and recall are what the scorer does on pages it has not seen,
printed beside the pipeline's own decision on the same lines (the furniture rules at the time of the capture).
`--stacked` adds that decision as one more feature (a scorer that corrects the rules). Not adopted: see
benchmarks/README.md, "Furniture: a learned scorer and a layout model".
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.furniture_features import FEATURES, is_candidate, page_frame, row_features
from ocr_pipeline.layout.boxes import Box

SEED = 20261205


def load_lines(path: Path) -> list[dict[str, Any]]:
    """One entry a labelled candidate line: its set, PDF, part, kind, features, label and text."""
    out = []
    for raw in path.read_text().splitlines():
        page = json.loads(raw)
        rows = [[Box(*b[:4], b[4]) for b in r["boxes"]] for r in page["rows"]]
        if not rows:
            continue
        frame = page_frame(rows, page["left"], page["width"], page["height"])
        for r, x in zip(page["rows"], row_features(rows, frame, page["repeated"]), strict=True):
            if r["label"] is None or not is_candidate(x):
                continue
            out.append({"set": page["set"], "pdf": page["pdf"], "part": page["part"], "kind": page["kind"],
                        "x": x, "y": r["label"], "text": r["text"], "rules": r.get("dropped", 0.0)})  # fmt: skip
    return out


def _fit(x: list[list[float]], y: list[int], weight: list[float], args: argparse.Namespace) -> Any:
    from sklearn.ensemble import GradientBoostingClassifier

    model = GradientBoostingClassifier(
        n_estimators=args.trees, max_depth=args.depth, learning_rate=args.rate, subsample=0.8,
        min_samples_leaf=args.min_leaf, random_state=SEED,
    )  # fmt: skip
    model.fit(x, y, sample_weight=weight)
    return model


def _weights(lines: list[dict[str, Any]]) -> list[float]:
    """Each set weighs the same in total, furniture lines and body lines apart, so no one set's pages rule."""
    per = Counter((ln["set"], ln["y"]) for ln in lines)
    return [1000.0 / per[(ln["set"], ln["y"])] for ln in lines]


def _threshold(lines: list[dict[str, Any]], args: argparse.Namespace) -> float:
    """The probability threshold with the best F1 over grouped 5-fold cross-validation on the tuning lines."""
    from sklearn.model_selection import GroupKFold

    probs = [0.0] * len(lines)
    groups = [ln["pdf"] for ln in lines]
    for fit_idx, test_idx in GroupKFold(n_splits=5).split(lines, groups=groups):
        fold = [lines[i] for i in fit_idx]
        model = _fit([ln["x"] for ln in fold], [ln["y"] for ln in fold], _weights(fold), args)
        for i, p in zip(test_idx, model.predict_proba([lines[i]["x"] for i in test_idx])[:, 1], strict=True):
            probs[i] = float(p)
    best = max((f1(lines, probs, t / 100)[2], t / 100) for t in range(10, 91, 5))
    return best[1]


def f1(lines: list[dict[str, Any]], probs: list[float], threshold: float) -> tuple[float, float, float]:
    """(precision, recall, F1) of calling lines furniture at `threshold`."""
    tp = sum(1 for ln, p in zip(lines, probs, strict=True) if p >= threshold and ln["y"] == 1)
    fp = sum(1 for ln, p in zip(lines, probs, strict=True) if p >= threshold and ln["y"] == 0)
    fn = sum(1 for ln, p in zip(lines, probs, strict=True) if p < threshold and ln["y"] == 1)
    precision, recall = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    return precision, recall, 2 * precision * recall / max(precision + recall, 1e-9)


def main(argv: list[str] | None = None) -> int:
    """Fit on the tuning part, print both parts' line scores, and write the model when asked."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=Path, required=True)
    ap.add_argument("--trees", type=int, default=120)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--rate", type=float, default=0.1)
    ap.add_argument("--min-leaf", type=int, default=5)
    ap.add_argument("--stacked", action="store_true", help="the rules' decision as one more feature")
    args = ap.parse_args(argv)
    lines = load_lines(args.lines)
    names = list(FEATURES)
    if args.stacked:
        names.append("rules")
        for ln in lines:
            ln["x"] = [*ln["x"], ln["rules"]]
    tuning = [ln for ln in lines if ln["part"] == "tuning"]
    check = [ln for ln in lines if ln["part"] == "check"]
    threshold = _threshold(tuning, args)
    model = _fit([ln["x"] for ln in tuning], [ln["y"] for ln in tuning], _weights(tuning), args)
    n_tuning, n_check = sum(ln["y"] for ln in tuning), sum(ln["y"] for ln in check)
    print(f"lines: tuning {len(tuning)} ({n_tuning} furniture), check {len(check)} ({n_check} furniture); "
          f"threshold {threshold:.2f} (grouped 5-fold CV on tuning)")  # fmt: skip
    print("| part | set | lines | furniture | precision | recall | F1 | rules: precision | recall | F1 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, part in (("tuning", tuning), ("check", check)):
        probs = [float(p) for p in model.predict_proba([ln["x"] for ln in part])[:, 1]] if part else []
        for s in sorted({ln["set"] for ln in part}) + ["all"]:
            idx = [i for i, ln in enumerate(part) if s in ("all", ln["set"])]
            sub = [part[i] for i in idx]
            pr, rc, f = f1(sub, [probs[i] for i in idx], threshold)
            rp, rr, rf = f1(sub, [ln["rules"] for ln in sub], 0.5)
            print(f"| {name} | {s} | {len(sub)} | {sum(ln['y'] for ln in sub)} | {pr:.3f} | {rc:.3f} | {f:.3f} "
                  f"| {rp:.3f} | {rr:.3f} | {rf:.3f} |")  # fmt: skip
    ranked = sorted(zip(names, model.feature_importances_, strict=True), key=lambda t: -t[1])
    print("importance: " + ", ".join(f"{n} {v:.3f}" for n, v in ranked[:15]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
