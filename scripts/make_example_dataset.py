"""Regenerate src/judgestats/datasets/example_labels.csv (the data behind `judgestats demo`).

A synthetic but realistic evaluation: 2,400 test answers of a model whose true accuracy is 0.62,
graded by an LLM judge with specificity 0.78 and sensitivity 0.91; 110 truly-incorrect and 95
truly-correct answers were labelled by humans to calibrate the judge. Run from the repository root:

    python scripts/make_example_dataset.py
"""

import csv
from pathlib import Path

import numpy as np

THETA, Q0, Q1 = 0.62, 0.78, 0.91
N_TEST, M0, M1 = 2400, 110, 95


def main() -> None:
    """Write the example label file (same seed, same file)."""
    rng = np.random.default_rng(20251121)
    truth = rng.random(N_TEST) < THETA
    judge_test = np.where(truth, rng.random(N_TEST) < Q1, rng.random(N_TEST) >= Q0)
    calib_truth = np.r_[np.zeros(M0, bool), np.ones(M1, bool)]
    rng.shuffle(calib_truth)
    calib_judge = np.where(
        calib_truth, rng.random(calib_truth.size) < Q1, rng.random(calib_truth.size) >= Q0
    )
    path = Path(__file__).resolve().parents[1] / "src/judgestats/datasets/example_labels.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item_id", "set", "judge", "human"])
        for i, verdict in enumerate(judge_test):
            writer.writerow([f"t{i:05d}", "test", int(verdict), ""])
        for i, (verdict, label) in enumerate(zip(calib_judge, calib_truth, strict=True)):
            writer.writerow([f"c{i:04d}", "calibration", int(verdict), int(label)])
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
