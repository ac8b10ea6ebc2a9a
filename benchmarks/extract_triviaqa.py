"""Extract nine LLM judges' verdicts and the human judgments on TriviaQA answers into one CSV.

Source: https://github.com/UMass-Meta-LLM-Eval/llm_eval (MIT, declared in its pyproject.toml; see
tests/fixtures/triviaqa/README.md for the commit). Thakur, Choudhary, Ramayapally, Vaidyanathan
and Hupkes, "Judging the Judges: Evaluating Alignment and Vulnerabilities in LLMs-as-Judges",
arXiv:2406.12624.

The repository keeps ``results/TriviaQA_Judges_w_HumanJudgement_V2.csv`` (benchmark
``triviaQA-400-FINAL``): one row per exam-taker model and question (400 TriviaQA questions, 8
exam-taker models, plus a second block of 400 ``gpt-4t`` rows that carry neither a human
judgment nor any judge's verdict), columns ``model, response, question, references,
benchmark``, one column per judge model (``True`` / ``False``: the judge's verdict that the
response is correct), ``Human-Eval`` (the human judgment, ``True`` / ``False``) and
``Human-Eval_Confidence``.

Output: one row per source row with a human judgment (the unjudged block is dropped; the
extraction checks that it has no verdict either), columns ``item`` (1-based data-row number in
the source CSV), ``exam_taker``, ``question`` (1-based index of the question in order of first
appearance), ``gold`` (1: the humans judged the response correct) and one column per judge
(1 / 0). No question, response or reference text is kept.

    python benchmarks/extract_triviaqa.py /work/.mirror/UMass-Meta-LLM-Eval+llm_eval/repo \
        [--rev HEAD] [--out tests/fixtures/triviaqa/triviaqa_verdicts.csv]

The path is a (bare) git directory read at ``--rev``, or a checkout with a ``results/`` folder.
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
    Path(__file__).resolve().parents[1]
    / "tests"
    / "fixtures"
    / "triviaqa"
    / "triviaqa_verdicts.csv"
)
SOURCE = "results/TriviaQA_Judges_w_HumanJudgement_V2.csv"
HUMAN = "Human-Eval"
#: the judge columns of the source, in its order
JUDGES = (
    "JudgeLM",
    "Gemma-2B",
    "Llama3-70B",
    "Llama-70B",
    "GPT-4",
    "Llama-7B",
    "Llama3-8B",
    "Llama-13B",
    "Mistral-7B",
)
VERDICT = {"True": "1", "False": "0"}
COLUMNS = ("item", "exam_taker", "question", "gold", *JUDGES)


def extract(snapshot: Snapshot) -> tuple[list[dict[str, str]], int]:
    """The CSV rows and the number of source rows dropped (no human judgment, no verdict)."""
    source = list(csv.DictReader(io.StringIO(snapshot.require(SOURCE), newline="")))
    missing = [name for name in (HUMAN, *JUDGES) if name not in source[0]]
    if missing:
        raise SystemExit(f"{SOURCE}: no column {missing}")
    questions: dict[str, int] = {}
    rows, dropped = [], 0
    for index, record in enumerate(source, start=1):
        number = questions.setdefault(record["question"], len(questions) + 1)
        if record[HUMAN] == "":
            if any(record[name] for name in JUDGES):
                raise SystemExit(f"{SOURCE}: row {index} has verdicts but no human judgment")
            dropped += 1
            continue
        cells = [record[HUMAN], *(record[name] for name in JUDGES)]
        if any(cell not in VERDICT for cell in cells):
            raise SystemExit(f"{SOURCE}: row {index} has a cell other than True/False: {cells}")
        row = {"item": str(index), "exam_taker": record["model"], "question": str(number)}
        row["gold"] = VERDICT[record[HUMAN]]
        row.update({name: VERDICT[record[name]] for name in JUDGES})
        rows.append(row)
    return rows, dropped


def load_verdicts(path: Path = FIXTURE) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Judge -> (z, z_hat) over every item of the extract (z: gold 1; z_hat: verdict 1)."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    z = np.array([int(row["gold"]) for row in rows], dtype=np.int64)
    return {
        name: (z, np.array([int(row[name]) for row in rows], dtype=np.int64)) for name in JUDGES
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path, help="git directory or checkout of llm_eval")
    parser.add_argument("--rev", default="HEAD", help="revision of a git directory (HEAD)")
    parser.add_argument("--out", type=Path, default=FIXTURE)
    args = parser.parse_args()
    snapshot = Snapshot(args.snapshot, args.rev, "results")
    rows, dropped = extract(snapshot)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(
        f"commit {snapshot.commit or '(checkout)'}: {len(rows)} items, {len(JUDGES)} judges "
        f"({dropped} rows without a human judgment dropped)"
    )
    for name, (z, z_hat) in load_verdicts(args.out).items():
        q1, q0 = z_hat[z == 1].mean(), 1 - z_hat[z == 0].mean()
        print(f"  {name}: q0 {q0:.3f}, q1 {q1:.3f}, J {q0 + q1 - 1:.3f}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
