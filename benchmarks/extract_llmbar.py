"""Extract LLMBar's stored evaluator verdicts and gold labels into one small wide CSV.

Source: https://github.com/princeton-nlp/LLMBar (MIT; see tests/fixtures/llmbar/README.md for the
commit). Zeng et al., "Evaluating Large Language Models at Evaluating Instruction Following",
arXiv:2310.07641.

The repository keeps, for each item set ``Dataset/<SET>/dataset.json`` (a list of items with the
gold ``label``, "1" or "2": which of ``output_1`` / ``output_2`` is better) and, for each evaluator
model and prompting strategy, ``Dataset/<SET>/evaluators/<MODEL>/<STRATEGY>/result.json``: the
same items in the same order, each with ``results``, a list (sometimes stored as the text of a
Python literal) whose last dict holds the evaluator's final verdict on both presentation orders:
``{"swap = False": {"winner": "1"|"2"|None, ...}, "swap = True": {...}}`` (the winner always
names the output in the dataset's own order). Earlier list entries are intermediate steps
(generated metrics or references, the swap strategy's first round).

The item sets: ``LLMBar/Natural`` and ``LLMBar/Adversarial/{Neighbor,GPTInst,GPTOut,Manual}``
(419 items; gold labels by the authors' construction, an objective preference) and
``Processed/{FairEval,LLMEval^2,MT-Bench}`` (466 items; gold labels from human annotators), the
``CaseStudy`` sets are left out.

Output: one row per item, columns ``item_id`` ("<SET>#<index>"), ``set``, ``gold`` and one column
per evaluator ``<MODEL>/<STRATEGY>``, each cell two characters: the winner on the original order,
then on the swapped order ("-" where the evaluator gave none), empty where the evaluator did not
judge that set. No instruction, output or explanation text is kept.

    python benchmarks/extract_llmbar.py /work/.mirror/princeton-nlp+LLMBar/repo \
        [--rev HEAD] [--out tests/fixtures/llmbar/llmbar_verdicts.csv]

The path is a (bare) git directory read at ``--rev``, or a checkout with a ``Dataset/`` folder.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _snapshot import Snapshot  # noqa: E402

DEFAULT_OUT = (
    Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "llmbar" / "llmbar_verdicts.csv"
)
SETS = (
    "LLMBar/Natural",
    "LLMBar/Adversarial/Neighbor",
    "LLMBar/Adversarial/GPTInst",
    "LLMBar/Adversarial/GPTOut",
    "LLMBar/Adversarial/Manual",
    "Processed/FairEval",
    "Processed/LLMEval^2",
    "Processed/MT-Bench",
)
ORDERS = ("swap = False", "swap = True")


def final_verdict(results: object) -> str:
    """The two-character verdict of one item's ``results`` (module docstring)."""
    if isinstance(results, str):
        results = ast.literal_eval(results)  # a Python literal of lists, dicts and strings
    if not isinstance(results, list):
        raise ValueError(f"`results` is a {type(results).__name__}, expected a list")
    final = [entry for entry in results if isinstance(entry, dict)][-1]
    cells = []
    for order in ORDERS:
        winner = final[order].get("winner")
        cells.append(str(winner) if winner in ("1", "2", 1, 2) else "-")
    return "".join(cells)


def extract(snapshot: Snapshot) -> tuple[list[dict[str, str]], list[str]]:
    """Rows (one per item) and the evaluator column names."""
    rows: list[dict[str, str]] = []
    judges: set[str] = set()
    for item_set in SETS:
        folder = f"Dataset/{item_set}"
        items = json.loads(snapshot.require(f"{folder}/dataset.json"))
        set_rows = [
            {"item_id": f"{item_set}#{i}", "set": item_set, "gold": str(item["label"])}
            for i, item in enumerate(items)
        ]
        for name in snapshot.names(f"{folder}/evaluators"):
            if not name.endswith("/result.json"):
                continue
            model, strategy = name.split("/")[-3:-1]
            judge = f"{model}/{strategy}"
            judged = json.loads(snapshot.require(name))
            if len(judged) != len(items):
                raise SystemExit(f"{name}: {len(judged)} items, dataset.json has {len(items)}")
            for row, item, record in zip(set_rows, items, judged, strict=True):
                if str(record["label"]) != row["gold"] or record["input"] != item["input"]:
                    raise SystemExit(f"{name}: item {row['item_id']} differs from dataset.json")
                row[judge] = final_verdict(record["results"])
            judges.add(judge)
        rows.extend(set_rows)
    return rows, sorted(judges)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path, help="git directory or checkout of LLMBar")
    parser.add_argument("--rev", default="HEAD", help="revision of a git directory (HEAD)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    snapshot = Snapshot(args.snapshot, args.rev, "Dataset")
    rows, judges = extract(snapshot)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(
            handle, fieldnames=["item_id", "set", "gold", *judges], lineterminator="\n"
        )
        writer.writeheader()
        writer.writerows(rows)
    print(f"commit {snapshot.commit or '(checkout)'}: {len(rows)} items, {len(judges)} evaluators")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
