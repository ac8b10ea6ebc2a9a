"""Regenerate src/judgestats/datasets/example_grouped_items.csv (grouped, repeatedly judged items).

A synthetic evaluation of three models on the same 150 questions, each answer graded three times
by an LLM judge (three epochs: the answer is fixed, the judge is sampled again), with a person's
label on 40 answers per model. True accuracies: model-a 0.75, model-b 0.60, model-c 0.45. The
judge has specificity 0.80 and sensitivity 0.90 on average, but some answers are harder to judge
than others: per answer, its probability of saying "correct" is drawn from a Beta distribution
with that mean and intra-answer correlation 0.3, so the three grades of one answer agree more
often than independent grades would. Columns: ``id`` (question), ``model``, ``epoch`` (1-3),
``verdict`` (C/I), ``human_label`` (C/I, empty where unlabelled; the same on every epoch of an
answer). Run from the repository root:

    python scripts/make_example_grouped.py
"""

import csv
from pathlib import Path

import numpy as np

MODELS = {"model-a": 0.75, "model-b": 0.60, "model-c": 0.45}
Q0, Q1, RHO = 0.80, 0.90, 0.3
N_ITEMS, N_LABELLED, EPOCHS = 150, 40, 3
OUT = Path(__file__).resolve().parents[1] / "src/judgestats/datasets/example_grouped_items.csv"


def _beta(rng: np.random.Generator, mean: np.ndarray) -> np.ndarray:
    """Per-answer judge propensities with the given means and intra-answer correlation RHO."""
    scale = (1.0 - RHO) / RHO
    return rng.beta(mean * scale, (1.0 - mean) * scale)


def rows(rng: np.random.Generator) -> list[dict[str, object]]:
    """The example's rows, model by model, question by question, epoch by epoch."""
    out = []
    for model, theta in MODELS.items():
        truth = rng.random(N_ITEMS) < theta
        propensity = _beta(rng, np.where(truth, Q1, 1.0 - Q0))
        labelled = set(rng.choice(N_ITEMS, N_LABELLED, replace=False).tolist())
        for i in range(N_ITEMS):
            label = ("C" if truth[i] else "I") if i in labelled else ""
            for epoch in range(1, EPOCHS + 1):
                verdict = "C" if rng.random() < propensity[i] else "I"
                out.append(
                    {
                        "id": f"q{i:03d}",
                        "model": model,
                        "epoch": epoch,
                        "verdict": verdict,
                        "human_label": label,
                    }
                )
    return out


def main() -> None:
    """Write the example file."""
    data = rows(np.random.default_rng(20251121))
    with OUT.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(data[0]))
        writer.writeheader()
        writer.writerows(data)
    print(f"wrote {len(data)} rows to {OUT}")


if __name__ == "__main__":
    main()
