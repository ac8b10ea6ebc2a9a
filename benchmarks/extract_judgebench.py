"""Extract the judges' verdicts on JudgeBench's 350 GPT-4o response pairs into one tidy CSV.

Source: https://github.com/ScalerLab/JudgeBench (see tests/fixtures/judgebench/README.md for the
commit and the licence). Each ``outputs/dataset=judgebench,response_model=gpt-4o-2024-05-13,
judge_name=NAME,judge_model=MODEL.jsonl`` holds one JSON object per response pair with the gold
``label`` ("A>B" or "B>A": which response is objectively correct) and two ``judgments``: the
first on the original order (A, B), the second on the swapped order (B, A), so its ``decision``
names the responses by their swapped positions. Both are written back in the original
orientation (``decision_2`` flips "A>B" <-> "B>A"; ties "A=B" and other strings stay as they are;
a missing judgment is written as the empty string).

Reduction to one verdict per pair (JudgeBench's own scoring, utils/metrics.py): each of the two
decisions votes +1 for the response it prefers; ``verdict`` is "A>B" if the net vote favours A,
"B>A" if it favours B, and "tie" otherwise (the orderings disagree, or both are ties/missing).
For the binary analysis the positive class is "A>B": a pair is judged positive iff its verdict is
"A>B", truly positive iff its gold label is "A>B" (a "tie" verdict counts as judged negative).

    python benchmarks/extract_judgebench.py /work/.mirror/ScalerLab+JudgeBench/repo \
        [--out tests/fixtures/judgebench/judgebench_gpt4o_verdicts.csv]

The path is either a (bare) git directory of the repository, read at ``--rev`` (HEAD), or a
checkout with an ``outputs/`` folder. Output files absent from the snapshot (the snapshot store
omits files of 4 MiB and more, i.e. most LLM judges' outputs, which keep the judges' full
explanations) are reported on stderr and skipped.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _snapshot import Snapshot  # noqa: E402

PAIRS = "data/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"
PREFIX = "outputs/dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name="
DEFAULT_OUT = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "fixtures"
    / "judgebench"
    / "judgebench_gpt4o_verdicts.csv"
)
COLUMNS = ("pair_id", "source", "judge", "decision_1", "decision_2", "verdict", "gold")
FLIP = {"A>B": "B>A", "B>A": "A>B"}


def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def decision(judgment: dict | None, flip: bool) -> str:
    if not judgment or judgment.get("decision") is None:
        return ""
    value = str(judgment["decision"])
    return FLIP.get(value, value) if flip else value


def reduce(first: str, second: str) -> str:
    vote = sum({"A>B": 1, "B>A": -1}.get(d, 0) for d in (first, second))
    return "A>B" if vote > 0 else "B>A" if vote < 0 else "tie"


def judge_label(name: str) -> str:
    """'outputs/...,judge_name=reward_model,judge_model=X.jsonl' -> 'reward_model:X'."""
    tail = name[len(PREFIX) : -len(".jsonl")]
    judge_name, _, judge_model = tail.partition(",judge_model=")
    return f"{judge_name}:{judge_model}"


def extract(snapshot: Snapshot) -> tuple[list[dict[str, str]], list[str]]:
    pairs_text = snapshot.read(PAIRS)
    if pairs_text is None:
        raise SystemExit(f"{PAIRS} is not in the snapshot")
    gold = {p["pair_id"]: p["label"] for p in jsonl(pairs_text)}
    rows: list[dict[str, str]] = []
    missing: list[str] = []
    for name in snapshot.names("outputs"):
        if not name.startswith(PREFIX):
            continue
        text = snapshot.read(name)
        if text is None:
            missing.append(name)
            continue
        judge = judge_label(name)
        records = jsonl(text)
        if sorted(r["pair_id"] for r in records) != sorted(gold):
            raise SystemExit(f"{name}: its pairs are not the 350 GPT-4o pairs")
        for record in sorted(records, key=lambda r: r["pair_id"]):
            if record["label"] != gold[record["pair_id"]]:
                raise SystemExit(f"{name}: label of {record['pair_id']} differs from {PAIRS}")
            judgments = list(record.get("judgments") or []) + [None, None]
            first = decision(judgments[0], flip=False)
            second = decision(judgments[1], flip=True)
            rows.append(
                {
                    "pair_id": record["pair_id"],
                    "source": record["source"],
                    "judge": judge,
                    "decision_1": first,
                    "decision_2": second,
                    "verdict": reduce(first, second),
                    "gold": record["label"],
                }
            )
    return rows, missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path, help="git directory or checkout of JudgeBench")
    parser.add_argument("--rev", default="HEAD", help="revision of a git directory (HEAD)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    snapshot = Snapshot(args.snapshot, args.rev, "outputs")
    rows, missing = extract(snapshot)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    judges = sorted({r["judge"] for r in rows})
    print(f"commit {snapshot.commit or '(checkout)'}: {len(rows)} rows, {len(judges)} judges")
    for judge in judges:
        mine = [r for r in rows if r["judge"] == judge]
        acc = sum(r["verdict"] == r["gold"] for r in mine) / len(mine)
        print(f"  {judge}: {len(mine)} pairs, accuracy {acc:.3f}")
    for name in missing:
        print(f"absent from the snapshot, skipped: {name}", file=sys.stderr)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
