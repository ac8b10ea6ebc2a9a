"""Regenerate src/judgestats/datasets/example_inspect.eval (an Inspect AI log with human reviews).

A synthetic evaluation written with inspect_ai's own writer: 400 questions answered by a model
whose true accuracy is 0.70, graded by an LLM judge (scorer ``model_graded_qa``) with specificity
0.80 and sensitivity 0.90. About 4% of the judge's grades are partial credit ``P``, and answers
the model left empty are graded ``N``. Two reviewers then checked a random 80 of the 400 samples
in the log itself, the way Inspect records a person's correction (``inspect_ai.log.edit_score``
with a ``ProvenanceData`` naming the reviewer): the judge's grade stays in
``Score.history[0]`` and the reviewer's verdict (``C`` or ``I``) becomes the score's value, also
where it agrees with the judge. Needs ``pip install 'judgestats[inspect]'``; run from the
repository root:

    python scripts/make_example_inspect.py

It also writes the inputs of ``judgestats compare --log-a ... --log-b ...``:
``example_inspect_b.eval``, a second model (true accuracy 0.60) answering the same 400 questions
(same ids), graded by the same judge and not reviewed in the log, and
``example_compare_labels.csv`` (columns ``id``, ``model``, ``human``): human labels of both
models' answers to the 80 reviewed questions, ``model`` naming the model of each row as the logs
do (``eval.model``). Model A's rows repeat the reviewers' verdicts recorded in
``example_inspect.eval``.
"""

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalSample,
    EvalSpec,
    ProvenanceData,
    edit_score,
    write_eval_log,
)
from inspect_ai.scorer import Score, ScoreEdit

THETA, Q0, Q1 = 0.70, 0.80, 0.90
N_ITEMS, N_REVIEWED = 400, 80
P_PARTIAL, P_EMPTY = 0.04, 0.02
SCORER = "model_graded_qa"
REVIEWERS = ("reviewer-a", "reviewer-b")
WHEN = datetime(2025, 11, 20, 9, 0, tzinfo=UTC)


def _grades(rng: np.random.Generator) -> tuple[np.ndarray, list[str]]:
    """The truth per item and the judge's letter grade (C/I, some P, N for empty answers)."""
    truth = rng.random(N_ITEMS) < THETA
    says_correct = np.where(truth, rng.random(N_ITEMS) < Q1, rng.random(N_ITEMS) >= Q0)
    grades = ["C" if c else "I" for c in says_correct]
    for i in np.flatnonzero(rng.random(N_ITEMS) < P_PARTIAL):
        grades[i] = "P"
    for i in np.flatnonzero((rng.random(N_ITEMS) < P_EMPTY / (1 - THETA)) & ~truth):
        grades[i] = "N"
    return truth, grades


def build_log() -> EvalLog:
    """The example log, from a fixed seed."""
    rng = np.random.default_rng(20251120)
    truth, grades = _grades(rng)
    spec = EvalSpec(
        created=WHEN.isoformat(),
        task="qa_example",
        dataset=EvalDataset(name="judgestats-example", samples=N_ITEMS),
        model="example/model-under-test",
        config=EvalConfig(),
    )
    samples = [
        EvalSample(
            id=f"q{i:03d}",
            epoch=1,
            input=f"Question {i}?",
            target=f"answer {i}",
            scores={SCORER: Score(value=grade, explanation="graded by the judge")},
        )
        for i, grade in enumerate(grades)
    ]
    log = EvalLog(eval=spec, samples=samples, status="success")
    reviewed = rng.choice(N_ITEMS, size=N_REVIEWED, replace=False)
    for number, i in enumerate(sorted(reviewed)):
        author = REVIEWERS[number % len(REVIEWERS)]
        edit = ScoreEdit(
            value="C" if truth[i] else "I",
            explanation="human review",
            provenance=ProvenanceData(timestamp=WHEN, author=author, reason="calibration review"),
        )
        edit_score(log, f"q{i:03d}", SCORER, edit, recompute_metrics=False)
    return log


MODEL_A, MODEL_B, THETA_B = "example/model-under-test", "example/model-b", 0.60
DATASETS = Path(__file__).resolve().parents[1] / "src/judgestats/datasets"


def build_second_model(log_a: EvalLog) -> tuple[EvalLog, list[tuple[str, str, int]]]:
    """Model B's log (no reviews in it) and the label rows (id, model, human) of both models."""
    rng = np.random.default_rng(20251121)
    truth_b = rng.random(N_ITEMS) < THETA_B
    says_correct = np.where(truth_b, rng.random(N_ITEMS) < Q1, rng.random(N_ITEMS) >= Q0)
    spec = log_a.eval.model_copy(update={"model": MODEL_B})
    samples = [
        EvalSample(
            id=f"q{i:03d}",
            epoch=1,
            input=f"Question {i}?",
            target=f"answer {i}",
            scores={SCORER: Score(value="C" if c else "I", explanation="graded by the judge")},
        )
        for i, c in enumerate(says_correct)
    ]
    rows: list[tuple[str, str, int]] = []
    for sample in log_a.samples or []:
        score = sample.scores[SCORER]
        if len(score.history) > 1:  # reviewed: the reviewer's verdict is the current value
            i = int(str(sample.id)[1:])
            rows.append((str(sample.id), MODEL_A, int(score.value == "C")))
            rows.append((str(sample.id), MODEL_B, int(truth_b[i])))
    return EvalLog(eval=spec, samples=samples, status="success"), rows


def main(only_second: bool = False) -> None:
    """Write the example logs and the label file (same seeds, same content)."""
    import csv
    import sys

    from inspect_ai.log import read_eval_log

    path = DATASETS / "example_inspect.eval"
    if not (only_second or "--only-second" in sys.argv[1:]):
        write_eval_log(build_log(), str(path))
        print(f"wrote {path} ({path.stat().st_size} bytes)")
    log_b, rows = build_second_model(read_eval_log(str(path)))
    path_b = DATASETS / "example_inspect_b.eval"
    write_eval_log(log_b, str(path_b))
    labels = DATASETS / "example_compare_labels.csv"
    with labels.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(("id", "model", "human"))
        writer.writerows(sorted(rows))
    print(f"wrote {path_b} ({path_b.stat().st_size} bytes) and {labels} ({len(rows)} labels)")


if __name__ == "__main__":
    main()
