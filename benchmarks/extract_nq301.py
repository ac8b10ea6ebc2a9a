"""Extract three automatic evaluators' verdicts and the human judgments on NQ301 into one CSV.

Source: https://github.com/ehsk/OpenQA-eval (MIT; see tests/fixtures/nq301/README.md for the
commit). Kamalloo, Dziri, Clarke and Rafiei, "Evaluating Open-Domain Question Answering in the Era
of Large Language Models", ACL 2023, arXiv:2305.06984.

The repository keeps, for 301 questions of the Natural Questions-open test set, the answers of 12
open-domain QA models (only the distinct answers the authors had to judge) in four tab-separated
files with the same rows in the same order (one header line, then one row per question and
answer):

- ``data/NQ301_human.tsv``: ``id, Question, Model answer, Acceptable?, annotator1, annotator2,
  annotator3`` -- ``Acceptable?`` ("Yes"/"No") is the human judgment (the gold label here);
- ``data/NQ301_gpt-4.tsv``: ``id, Question, Model answer, Acceptable?, gpt-4`` -- GPT4-eval's
  verdict ("Yes"/"No"; empty on two rows where GPT-4 answered "I cannot determine ...") and its
  reply;
- ``data/NQ301_text-davinci-003.tsv``: InstructGPT-eval's, the same columns, but with no tab
  between the question and the answer (four fields a row);
- ``data/NQ301_BEM.tsv``: ``id`` (a row number), ``Question, Gold answers, Model answer,
  Acceptable?`` and BEM's probabilities -- ``Acceptable?`` is the BEM (BERT-based answer
  equivalence model) verdict.

Rows are matched by position; the extraction checks that every row's question (and, where the
file keeps it, question id) agrees with the human file and lists on stderr the rows whose answer
text differs (three, each a formatting or copy difference of the source files).

Output: one row per judged answer, columns ``item`` (1-based row number of the human file),
``question_id``, ``gold`` (1: humans judged the answer acceptable) and one column per evaluator
(1 / 0 / empty: judged acceptable / not / no verdict). No question, answer or reply text is kept.

    python benchmarks/extract_nq301.py /work/.mirror/ehsk+OpenQA-eval/repo \
        [--rev HEAD] [--out tests/fixtures/nq301/nq301_verdicts.csv]

The path is a (bare) git directory read at ``--rev``, or a checkout with a ``data/`` folder.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _snapshot import Snapshot  # noqa: E402

FIXTURE = (
    Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "nq301" / "nq301_verdicts.csv"
)
HUMAN = "data/NQ301_human.tsv"
#: evaluator -> (file, column of the question, of the answer (None: joined to the question),
#: of the verdict, of the question id (None: the file numbers its rows instead))
JUDGES = {
    "gpt-4": ("data/NQ301_gpt-4.tsv", 1, 2, 3, 0),
    "text-davinci-003": ("data/NQ301_text-davinci-003.tsv", 1, None, 2, 0),
    "BEM": ("data/NQ301_BEM.tsv", 1, 3, 4, None),
}
VERDICT = {"Yes": "1", "No": "0", "": ""}
COLUMNS = ("item", "question_id", "gold", *JUDGES)


def tsv(text: str) -> list[list[str]]:
    """The data rows of a tab-separated file (its header line dropped)."""
    return list(csv.reader(io.StringIO(text, newline=""), delimiter="\t"))[1:]


def judge_column(
    human: list[list[str]], rows: list[list[str]], layout: tuple, name: str
) -> tuple[list[str], list[int]]:
    """One evaluator's verdicts in the human file's row order, and the rows whose answer differs."""
    _, q_col, a_col, v_col, id_col = layout
    if len(rows) != len(human):
        raise SystemExit(f"{name}: {len(rows)} rows, the human file has {len(human)}")
    verdicts, differing = [], []
    for index, (mine, theirs) in enumerate(zip(human, rows, strict=True)):
        question, answer = mine[1], mine[2]
        if a_col is None:
            same_question = theirs[q_col] == question + answer
            same_answer = same_question
        else:
            same_question = theirs[q_col] == question
            same_answer = theirs[a_col] == answer
        if not same_question or (id_col is not None and theirs[id_col] != mine[0]):
            raise SystemExit(f"{name}: row {index + 1} is not the human file's question")
        if not same_answer:
            differing.append(index + 1)
        if theirs[v_col] not in VERDICT:
            raise SystemExit(f"{name}: row {index + 1} has verdict {theirs[v_col]!r}")
        verdicts.append(VERDICT[theirs[v_col]])
    return verdicts, differing


def extract(snapshot: Snapshot) -> tuple[list[dict[str, str]], dict[str, list[int]]]:
    """The CSV rows and, per evaluator, the rows whose answer text differs from the human file."""
    human = tsv(snapshot.require(HUMAN))
    rows = [
        {
            "item": str(i + 1),
            "question_id": r[0],
            "gold": {"Yes": "1", "No": "0"}[r[3]],
        }
        for i, r in enumerate(human)
    ]
    differing = {}
    for name, layout in JUDGES.items():
        verdicts, differing[name] = judge_column(
            human, tsv(snapshot.require(layout[0])), layout, name
        )
        for row, verdict in zip(rows, verdicts, strict=True):
            row[name] = verdict
    return rows, differing


def load_verdicts(path: Path = FIXTURE) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Evaluator -> (z, z_hat) over every item of the extract (z: gold 1; z_hat: verdict 1).

    A missing verdict (GPT-4's two "I cannot determine") counts as judged negative.
    """
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    z = np.array([int(row["gold"]) for row in rows], dtype=np.int64)
    return {
        name: (z, np.array([int(row[name] == "1") for row in rows], dtype=np.int64))
        for name in JUDGES
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path, help="git directory or checkout of OpenQA-eval")
    parser.add_argument("--rev", default="HEAD", help="revision of a git directory (HEAD)")
    parser.add_argument("--out", type=Path, default=FIXTURE)
    args = parser.parse_args()
    snapshot = Snapshot(args.snapshot, args.rev, "data")
    rows, differing = extract(snapshot)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"commit {snapshot.commit or '(checkout)'}: {len(rows)} items, {len(JUDGES)} evaluators")
    for name, (z, z_hat) in load_verdicts(args.out).items():
        q1, q0 = z_hat[z == 1].mean(), 1 - z_hat[z == 0].mean()
        print(f"  {name}: q0 {q0:.3f}, q1 {q1:.3f}, J {q0 + q1 - 1:.3f}")
    for name, items in differing.items():
        if items:
            print(f"{name}: answer text differs from {HUMAN} on rows {items}", file=sys.stderr)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
