"""Regenerate the item-level example files of judgestats.io under src/judgestats/datasets/.

Synthetic answers of a model with true accuracy 0.70, graded by an LLM judge with specificity
0.80 and sensitivity 0.90; some answers carry a human label. Written in each tool's own layout
(see tests/fixtures/io/README.md for the sources of the layouts). Run from the repository root:

    python scripts/make_io_examples.py

Files: ``example_items.csv`` (id, verdict C/I, human_label C/I or empty: 200 items, 60
labelled), ``example_lm_eval_samples.jsonl`` (120 lm-evaluation-harness records, metric
``acc``), ``example_human_labels.csv`` (id, human 0/1 for 40 of those documents) and
``example_promptfoo_results.json`` (40 promptfoo results, judge ``llm-rubric``, 20 rated by a
person in promptfoo's viewer).
"""

import csv
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests/fixtures/io"))
from make_fixtures import lm_eval_record, output_file, promptfoo_result  # noqa: E402

THETA, Q0, Q1 = 0.70, 0.80, 0.90
OUT = ROOT / "src/judgestats/datasets"


def _simulate(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    truth = rng.random(size) < THETA
    judge = np.where(truth, rng.random(size) < Q1, rng.random(size) >= Q0)
    return truth, judge


def main() -> None:
    """Write the example files (same seed, same files)."""
    rng = np.random.default_rng(20261123)
    truth, judge = _simulate(rng, 200)
    labelled = set(rng.choice(200, size=60, replace=False).tolist())
    with (OUT / "example_items.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "verdict", "human_label"])
        for i in range(200):
            label = ("C" if truth[i] else "I") if i in labelled else ""
            writer.writerow([f"item{i:03d}", "C" if judge[i] else "I", label])
    truth, judge = _simulate(rng, 120)
    (OUT / "example_lm_eval_samples.jsonl").write_text(
        "".join(json.dumps(lm_eval_record(i, float(v))) + "\n" for i, v in enumerate(judge))
    )
    chosen = sorted(rng.choice(120, size=40, replace=False).tolist())
    with (OUT / "example_human_labels.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "human"])
        writer.writerows([i, int(truth[i])] for i in chosen)
    truth, judge = _simulate(rng, 40)
    scores = np.round(np.where(judge, rng.uniform(0.6, 1.0, 40), rng.uniform(0.0, 0.5, 40)), 2)
    rated = set(rng.choice(40, size=20, replace=False).tolist())
    results = [
        promptfoo_result(
            i, bool(judge[i]), float(scores[i]), bool(truth[i]) if i in rated else None
        )
        for i in range(40)
    ]
    (OUT / "example_promptfoo_results.json").write_text(json.dumps(output_file(results), indent=1))
    print(f"wrote the examples to {OUT}")


if __name__ == "__main__":
    main()
