"""Real-data check (issue 24): the recommended interval on real judges' verdicts with gold labels.

Data (each fixture's README gives the source repository, commit, licence and the extraction
command):

- ``judgebench``: tests/fixtures/judgebench/ — 6 judges on JudgeBench's 350 GPT-4o response
  pairs (ScalerLab/JudgeBench); positive = gold "A>B"; judged positive = reduced verdict "A>B".
- ``llmbar``: tests/fixtures/llmbar/ — LLMBar's 419 items (Natural + the four Adversarial sets;
  princeton-nlp/LLMBar), gold labels by construction; by default the 13 evaluators of
  :data:`LLMBAR_JUDGES`, chosen to span J from -0.22 to 0.74 with four at J >= 0.6
  (``--all-judges``: all 65).
- ``llmbar_human``: the same fixture's 466 items with human gold labels (FairEval, LLMEval^2 and
  MT-Bench human judgments as processed by LLMBar), its 8 evaluators (J 0.31 to 0.57).
- ``nq301``: tests/fixtures/nq301/ — 1,490 answers to 301 NQ-open questions (ehsk/OpenQA-eval),
  human gold; GPT-4, InstructGPT and BEM as judges (J 0.63 to 0.70); positive = acceptable.
- ``triviaqa``: tests/fixtures/triviaqa/ — 3,200 answers to 400 TriviaQA questions
  (UMass-Meta-LLM-Eval/llm_eval), human gold; 9 LLM judges (J 0.04 to 0.90, GPT-4 and Llama3-70B
  at J >= 0.8); positive = correct.

For LLMBar the positive class is "output 1 is better" (gold label "1"); an evaluator judges an
item positive iff its winner on the original presentation order is "1" (one call per item, as a
user would run it; a missing winner counts as judged negative).

What is estimated and what is scored: theta = the share of truly positive items among all N
items. A split labels M items drawn without replacement (the same splits for every judge of a
dataset: seeded by ``--random-seed``, M and the split index); the other n = N - M keep only the
judge's verdict. Both targets' intervals are scored against this theta: for ``target="items"`` it
is the estimand itself; for ``target="population"`` it stands in for the process accuracy (as in
the issue's check).

Intervals per split (95%):

- ``cp``: labels-only Clopper-Pearson on the M labels (binomial; scipy) — population target;
- ``cp_fp``: its finite-population (hypergeometric) version over the N items — items target;
- ``ppi``: PPI++ from ppi-python, ``ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.05)``
  (lam=None: power-tuned), clipped to [0, 1]; the same interval is scored for both targets;
- ``rec_population``, ``rec_items``: the interval ``judgestats.crosscheck(data,
  target=...).recommended`` gives, computed through the functions crosscheck itself calls for
  random-design data (:func:`rule_pick`): the sampling check ``_sampling_fails``, the
  closed-form candidates ``count_candidates`` and ``recommend_random`` (the posterior candidates
  are left out: the rule never picks them, they have no table coverage). Where the sampling check
  fails (the stratified rule applies) the split goes through ``crosscheck`` itself. On the first
  ``--verify`` splits of every cell both targets also go through ``crosscheck`` and the two
  answers (method, low, high) are compared; every mismatch is reported.

Statements per cell and target (the issue's done-when), for the recommendation R:
``covers`` (coverage >= 0.945), ``narrower`` (mean width <= the labels-only CP's of the same
target), ``near_ppi`` (mean width <= 1.05 x PPI++'s, judged only where PPI++ covers >= 0.945),
``strong`` (R / CP mean width, judged where the judge's J >= 0.8 and n >= 10 M; the statement is
that the median over those cells is <= 0.85). The Monte Carlo standard error of each coverage is
sqrt(c (1 - c) / splits).

    python benchmarks/real_data.py                        # 200 splits, M 30 60 120, all datasets
    python benchmarks/real_data.py --splits 20 --tag quick
    python benchmarks/real_data.py --datasets llmbar --all-judges --splits 50 --tag llmbar_all
    python benchmarks/real_data.py --from-json benchmarks/results/real_data.json   # rewrite .md
    python benchmarks/real_data.py --from-json benchmarks/results/real_data.json --snippet 0.6
    python benchmarks/real_data.py --from-json benchmarks/results/real_data.json --docs

Writes benchmarks/results/real_data[_TAG].json and .md.
"""

from __future__ import annotations

import argparse
import csv
import functools
import json
import math
import sys
import time
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import RESULTS, write_results  # noqa: E402
from extract_nq301 import load_verdicts as load_nq301  # noqa: E402
from extract_triviaqa import load_verdicts as load_triviaqa  # noqa: E402
from real_judgebench import (  # noqa: E402
    clopper_pearson,
    counts,
    finite_population_exact,
    judge_summary,
    labelled_mask,
    load_fixture,
    ppi_plus_plus,
)

ROOT = Path(__file__).resolve().parents[1]
LLMBAR = ROOT / "tests" / "fixtures" / "llmbar" / "llmbar_verdicts.csv"
LLMBAR_SETS = {
    "llmbar": ("LLMBar/",),
    "llmbar_human": ("Processed/",),
}
#: LLMBar evaluators benchmarked by default (``--all-judges`` takes every one).
LLMBAR_JUDGES = (
    "ChatGPT/Vanilla_2shot",
    "LLaMA2/Vanilla_NoRules",
    "ChatGPT-0301/Vanilla_1shot",
    "ChatGPT/Rating_NoRules",
    "Falcon/Swap_CoT",
    "Falcon/Vanilla_1shot",
    "PaLM2/Vanilla_NoRules",
    "PaLM2/Metrics_Reference",
    "GPT-4/Vanilla_NoRules",
    "GPT-4/CoT",
    "GPT-4/Swap_CoT",
    "GPT-4/Reference",
    "GPT-4/Rating_Metrics_Reference",
)
DATASETS = ("judgebench", "llmbar", "llmbar_human", "nq301", "triviaqa")
TARGETS = ("population", "items")
EXACT = {"population": "cp", "items": "cp_fp"}
LEVEL = 0.95
SIZES = (30, 60, 120)
SPLITS = 200
VERIFY = 10
RANDOM_SEED = 20251126
COVERAGE_TARGET = 0.945
PPI_SLACK = 1.05
STRONG_J, STRONG_RATIO, STRONG_WIDTH = 0.8, 10, 0.85

Judges = dict[str, tuple[np.ndarray, np.ndarray]]

# the labels-only intervals depend on (labelled positives, M, N) only: shared by every judge
exact_binomial = functools.lru_cache(maxsize=None)(clopper_pearson)
exact_finite = functools.lru_cache(maxsize=None)(finite_population_exact)


# ---------------------------------------------------------------------------------------------
# data


def load_llmbar(path: Path = LLMBAR, sets: Sequence[str] = ("LLMBar/",)) -> Judges:
    """Evaluator -> (z, z_hat) over the items whose set starts with one of ``sets``.

    z: gold label "1"; z_hat: the winner on the original order is "1" (first character of the
    cell). Only evaluators that judged every such item are kept.
    """
    with path.open(newline="", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["set"].startswith(tuple(sets))]
    if not rows:
        raise ValueError(f"no item of `sets` {list(sets)} in {path}")
    judges = [name for name in rows[0] if name not in ("item_id", "set", "gold")]
    z = np.array([row["gold"] == "1" for row in rows], dtype=np.int64)
    out: Judges = {}
    for judge in judges:
        cells = [row[judge] for row in rows]
        if all(cells):
            out[judge] = (z, np.array([cell[0] == "1" for cell in cells], dtype=np.int64))
    return out


def load_dataset(name: str, all_judges: bool = False) -> Judges:
    """The judges of one dataset of :data:`DATASETS`."""
    loaders = {"judgebench": load_fixture, "nq301": load_nq301, "triviaqa": load_triviaqa}
    if name in loaders:
        return loaders[name]()
    judges = load_llmbar(LLMBAR, LLMBAR_SETS[name])
    if name == "llmbar" and not all_judges:
        judges = {j: judges[j] for j in LLMBAR_JUDGES}
    return judges


# ---------------------------------------------------------------------------------------------
# the recommendation, as crosscheck computes it

Pick = tuple[str, float, float, float]  # method, estimate, low, high


def crosscheck_pick(data: object, target: str, seed: int) -> Pick:
    """``judgestats.crosscheck(data, target=target).recommended`` as (method, est, low, high)."""
    import judgestats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rec = judgestats.crosscheck(data, target=target, random_seed=seed).recommended
    return str(rec.method), float(rec.estimate), float(rec.low), float(rec.high)


def rule_pick(data: object, target: str) -> Pick | None:
    """The random-design pick through the functions crosscheck calls; None where the
    class-balance check sends the data to the stratified rule (then use :func:`crosscheck_pick`).
    """
    from judgestats.designs.random_candidates import count_candidates
    from judgestats.recommendation.random_rule import recommend_random
    from judgestats.recommendation.side_by_side import _sampling_fails

    if _sampling_fails(data) is not None:  # type: ignore[arg-type]
        return None
    c = (data.k, data.n, data.k0, data.m0, data.k1, data.m1)  # type: ignore[attr-defined]
    candidates = count_candidates(*c, target=target, level=LEVEL)
    rec = recommend_random(data, LEVEL, candidates, target=target)  # type: ignore[arg-type]
    return str(rec.method), float(rec.estimate), float(rec.low), float(rec.high)


# ---------------------------------------------------------------------------------------------
# one cell


class Tally:
    """Coverage hits and widths of one interval over the splits."""

    def __init__(self) -> None:
        self.hits: list[float] = []
        self.widths: list[float] = []
        self.errors: Counter[str] = Counter()

    def add(self, theta: float, low: float, high: float) -> None:
        if not (math.isfinite(low) and math.isfinite(high)) or low > high:
            self.errors["no finite interval"] += 1
            self.hits.append(0.0)
            return
        self.hits.append(float(low - 1e-12 <= theta <= high + 1e-12))
        self.widths.append(high - low)

    def fail(self, error: Exception) -> None:
        self.errors[type(error).__name__ + ": " + str(error)[:100]] += 1
        self.hits.append(0.0)

    def summary(self) -> dict[str, object]:
        cover = float(np.mean(self.hits))
        return {
            "coverage": cover,
            "coverage_se": math.sqrt(cover * (1.0 - cover) / len(self.hits)),
            "mean_width": float(np.mean(self.widths)) if self.widths else None,
            "errors": dict(self.errors),
        }


def run_cell(
    z: np.ndarray, z_hat: np.ndarray, size: int, splits: int, seed: int, verify: int = VERIFY
) -> dict[str, object]:
    """Coverage and mean width of every interval for one judge and labelled-set size M."""
    import judgestats

    theta, population = float(z.mean()), z.size
    tallies = {name: Tally() for name in ("cp", "cp_fp", "ppi", *(f"rec_{t}" for t in TARGETS))}
    picks: dict[str, Counter[str]] = {t: Counter() for t in TARGETS}
    check = {"compared": 0, "identical": 0, "mismatches": [], "fallback_to_crosscheck": 0}
    for split in range(splits):
        mask = labelled_mask(population, size, split, seed)
        x = int(z[mask].sum())
        tallies["cp"].add(theta, *exact_binomial(x, size)[1:])
        tallies["cp_fp"].add(theta, *exact_finite(x, size, population)[1:])
        try:
            tallies["ppi"].add(theta, *ppi_plus_plus(z[mask], z_hat[mask], z_hat[~mask])[1:])
        except Exception as error:  # noqa: BLE001 - counted, not raised
            tallies["ppi"].fail(error)
        data = judgestats.JudgeData(**counts(z, z_hat, mask), design="random")
        for target in TARGETS:
            pick = rule_pick(data, target)
            if pick is None:
                check["fallback_to_crosscheck"] += 1  # type: ignore[operator]
                pick = crosscheck_pick(data, target, seed + split)
            elif split < verify:
                full = crosscheck_pick(data, target, seed + split)
                check["compared"] += 1  # type: ignore[operator]
                if full == pick:
                    check["identical"] += 1  # type: ignore[operator]
                else:
                    check["mismatches"].append(  # type: ignore[attr-defined]
                        {"split": split, "target": target, "fast": pick, "crosscheck": full}
                    )
            picks[target][pick[0]] += 1
            tallies[f"rec_{target}"].add(theta, pick[2], pick[3])
    return {
        "theta": theta,
        "N": population,
        "methods": {name: tally.summary() for name, tally in tallies.items()},
        "picks": {t: dict(c.most_common()) for t, c in picks.items()},
        "verification": check,
    }


def statements(cell: dict, j: float) -> dict[str, dict[str, object]]:
    """The done-when statements of one cell, per target (module docstring)."""
    methods = cell["methods"]
    ppi = methods["ppi"]
    ppi_covers = ppi["coverage"] >= COVERAGE_TARGET
    out = {}
    for target in TARGETS:
        rec, exact = methods[f"rec_{target}"], methods[EXACT[target]]
        width, exact_width = rec["mean_width"], exact["mean_width"]
        strong = j >= STRONG_J and cell["N"] - cell["M"] >= STRONG_RATIO * cell["M"]
        out[target] = {
            "covers": rec["coverage"] >= COVERAGE_TARGET,
            "narrower": width is not None and exact_width is not None and width <= exact_width,
            "near_ppi": (
                width is not None and width <= PPI_SLACK * ppi["mean_width"]
                if ppi_covers and ppi["mean_width"] is not None
                else None
            ),
            "over_exact": width / exact_width if width and exact_width else None,
            "over_ppi": width / ppi["mean_width"] if width and ppi["mean_width"] else None,
            "strong": strong,
        }
    return out


def _cell_task(task: tuple) -> dict[str, object]:
    """One cell, for a worker process: (header, z, z_hat, size, splits, seed, verify)."""
    header, z, z_hat, size, splits, seed, verify = task
    start = time.perf_counter()
    cell = header | run_cell(z, z_hat, size, splits, seed, verify)
    cell["statements"] = statements(cell, header["J"])
    cell["seconds"] = time.perf_counter() - start
    return cell


def harness(
    datasets: Sequence[str],
    sizes: Sequence[int] = SIZES,
    splits: int = SPLITS,
    seed: int = RANDOM_SEED,
    verify: int = VERIFY,
    all_judges: bool = False,
    workers: int = 1,
) -> dict[str, object]:
    """Every (dataset, judge, M) cell; judges ordered by J within a dataset.

    The cells are independent and seeded per split, so ``workers`` processes give the same
    numbers as one.
    """
    from concurrent.futures import ProcessPoolExecutor

    tasks, judges_out = [], {}
    for dataset in datasets:
        judges = load_dataset(dataset, all_judges)
        summaries = {j: judge_summary(*arrays) for j, arrays in judges.items()}
        judges_out[dataset] = summaries
        for judge in sorted(judges, key=lambda j: summaries[j]["J"]):
            for size in sizes:
                header = {"dataset": dataset, "judge": judge, "M": size, "J": summaries[judge]["J"]}
                tasks.append((header, *judges[judge], size, splits, seed, verify))
    cells = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for cell in pool.map(_cell_task, tasks):
            cells.append(cell)
            print(
                f"{cell['dataset']} {cell['judge']} M={cell['M']}: " + ", ".join(
                    f"rec {t} {cell['methods'][f'rec_{t}']['coverage']:.3f}/"
                    f"{cell['methods'][f'rec_{t}']['mean_width']:.3f}" for t in TARGETS
                ) + f" ({cell['seconds']:.1f} s)",
                file=sys.stderr, flush=True,
            )  # fmt: skip
    return {"judges": judges_out, "cells": cells, "totals": totals(cells)}


def totals(cells: list[dict]) -> dict[str, dict[str, object]]:
    """Counts of each statement over the cells, per target, and the verification."""
    out: dict[str, dict[str, object]] = {}
    for target in TARGETS:
        rows = [c["statements"][target] for c in cells]
        judged = [r for r in rows if r["near_ppi"] is not None]
        strong = [r["over_exact"] for r in rows if r["strong"] and r["over_exact"] is not None]
        good = [
            c["statements"][target]["over_exact"]
            for c in cells
            if c["J"] >= 0.6 and c["statements"][target]["over_exact"] is not None
        ]
        low_se = [
            c for c in cells
            if c["methods"][f"rec_{target}"]["coverage"]
            < COVERAGE_TARGET - 2 * max(c["methods"][f"rec_{target}"]["coverage_se"], 1e-9)
        ]  # fmt: skip
        out[target] = {
            "cells": len(rows),
            "covers": sum(bool(r["covers"]) for r in rows),
            "below_by_2se": len(low_se),
            "narrower": sum(bool(r["narrower"]) for r in rows),
            "ppi_covers": len(judged),
            "near_ppi": sum(bool(r["near_ppi"]) for r in judged),
            "strong_cells": len(strong),
            "strong_median_over_exact": float(np.median(strong)) if strong else None,
            "j06_cells": len(good),
            "j06_median_over_exact": float(np.median(good)) if good else None,
        }
    checks = [c["verification"] for c in cells]
    out["verification"] = {
        "compared": sum(v["compared"] for v in checks),
        "identical": sum(v["identical"] for v in checks),
        "fallback_to_crosscheck": sum(v["fallback_to_crosscheck"] for v in checks),
    }
    return out


# ---------------------------------------------------------------------------------------------
# report


def _entry(method: dict) -> str:
    width = method["mean_width"]
    return f"{method['coverage']:.3f} / {'-' if width is None else f'{width:.3f}'}"


def _flags(statement: dict) -> str:
    marks = [
        "" if statement["covers"] else "C",
        "" if statement["narrower"] else "W",
        "P" if statement["near_ppi"] is False else "",
    ]
    return "".join(marks) or "ok"


def table(cells: list[dict]) -> list[str]:
    """The coverage / mean width table (one row per cell)."""
    lines = [
        "| data | judge | J | M | CP | PPI++ | rec. population | CP finite pop. | rec. items "
        "| SE | flags pop. / items |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in cells:
        m, s = c["methods"], c["statements"]
        se = max(m[f"rec_{t}"]["coverage_se"] for t in TARGETS)
        judge = c["judge"].split(":", 1)[-1]
        lines.append(
            f"| {c['dataset']} | {judge} | {c['J']:.2f} | {c['M']} | "
            f"{_entry(m['cp'])} | {_entry(m['ppi'])} | {_entry(m['rec_population'])} | "
            f"{_entry(m['cp_fp'])} | {_entry(m['rec_items'])} | {se:.3f} | "
            f"{_flags(s['population'])} / {_flags(s['items'])} |"
        )
    return lines


def totals_lines(result: dict) -> list[str]:
    tot = result["totals"]
    lines = []
    for target in TARGETS:
        t = tot[target]
        strong = (
            f"median rec./CP width {t['strong_median_over_exact']:.2f} over {t['strong_cells']} "
            "cells with J >= 0.8 and n >= 10 M"
            if t["strong_cells"]
            else "no cell has J >= 0.8 and n >= 10 M (the J >= 0.8 statement is not tested here)"
        )
        if t.get("j06_cells"):
            strong += (
                f"; median rec./CP width over the {t['j06_cells']} cells with J >= 0.6: "
                f"{t['j06_median_over_exact']:.2f}"
            )
        lines.append(
            f"- {target}: covers >= {COVERAGE_TARGET} in {t['covers']}/{t['cells']} cells "
            f"({t['below_by_2se']} below by more than 2 SE); width <= labels-only CP in "
            f"{t['narrower']}/{t['cells']}; within 5% of PPI++ in {t['near_ppi']}/"
            f"{t['ppi_covers']} cells where PPI++ covers; {strong}."
        )
    v = tot["verification"]
    lines.append(
        f"- crosscheck check: {v['identical']}/{v['compared']} (target, split) pairs gave the "
        f"identical recommended interval through `judgestats.crosscheck`; "
        f"{v['fallback_to_crosscheck']} went through crosscheck (class-balance test failed)."
    )
    return lines


def markdown(result: dict) -> str:
    config = result["config"]
    cells = result["cells"]
    lines = [
        "# Real-data check: judges with gold labels, random labelled subsets",
        "",
        f"{config['splits']} random splits per cell (seed {config['random_seed']}), M labelled "
        f"items of N; 95% intervals; each entry coverage / mean width. Truth: the share of gold "
        f"positives among the N items (both targets). `python benchmarks/real_data.py` "
        f"({config['seconds'] / 60:.1f} min wall, {config.get('cpu_seconds', 0) / 60:.1f} min CPU, "
        f"{config.get('workers', 1)} processes on {config['cpu_count']} cores, load average "
        f"{config['load_average'][1]:.1f}); judgestats "
        f"{config['judgestats_version']}, ppi-python {config['ppi_python_version']}.",
        "",
        "CP: labels-only Clopper-Pearson (binomial); CP finite pop.: hypergeometric over N; "
        "PPI++: ppi_py.ppi_mean_ci (power-tuned lambda); rec.: crosscheck(data, target=...)"
        ".recommended. SE: the larger Monte Carlo SE of the two rec. coverages. Flags: C = "
        f"covers < {COVERAGE_TARGET}, W = wider than CP of its target, P = more than 5% wider "
        "than PPI++ where PPI++ covers; ok = none.",
        "",
        *table(cells),
        "",
        "## Totals",
        "",
        *totals_lines(result),
        "",
        "## Picks (share of splits)",
        "",
        "| data | judge | M | population | items |",
        "|---|---|---|---|---|",
    ]
    for c in cells:
        picks = [
            ", ".join(f"{k} {v / config['splits']:.2f}" for k, v in c["picks"][t].items())
            for t in TARGETS
        ]
        lines.append(f"| {c['dataset']} | {c['judge']} | {c['M']} | {picks[0]} | {picks[1]} |")
    mismatches = [(c, m) for c in cells for m in c["verification"]["mismatches"]]
    if mismatches:
        lines += ["", "## crosscheck mismatches", ""]
        lines += [f"- {c['dataset']} {c['judge']} M={c['M']}: {m}" for c, m in mismatches]
    return "\n".join(lines) + "\n"


def snippet(result: dict, min_j: float | None = None) -> str:
    """The table (only judges with J >= ``min_j`` if given) and the totals, for README / docs."""
    cells = [c for c in result["cells"] if min_j is None or c["J"] >= min_j]
    return "\n".join([*table(cells), "", *totals_lines(result)]) + "\n"


#: Pages holding the table between these markers, with the J floor of their rows (None: all).
DOC_PAGES = {"README.md": 0.6, "docs/guide/random_design.md": None}
START, END = "<!-- real_data.py table: start -->", "<!-- real_data.py table: end -->"


def write_docs(result: dict, source: str) -> None:
    """Replace the text between :data:`START` and :data:`END` on each page of DOC_PAGES."""
    for name, min_j in DOC_PAGES.items():
        path = ROOT / name
        text = path.read_text(encoding="utf-8")
        head, sep, rest = text.partition(START)
        _, sep2, tail = rest.partition(END)
        if not (sep and sep2):
            raise SystemExit(f"{name} has no {START} ... {END} markers")
        body = f"\n<!-- from {source}; do not edit by hand -->\n" + snippet(result, min_j)
        path.write_text(head + START + body + END + tail, encoding="utf-8")
        print(f"rewrote the table in {name}")


def main() -> None:
    import os
    import resource
    from importlib import metadata

    import judgestats

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=SPLITS)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--verify", type=int, default=VERIFY, help="crosscheck splits per cell")
    parser.add_argument("--all-judges", action="store_true", help="every LLMBar evaluator")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--random-seed", type=int, default=RANDOM_SEED)
    parser.add_argument("--tag", default=None, help="results suffix")
    parser.add_argument("--from-json", type=Path, default=None, help="only rewrite the .md")
    parser.add_argument(
        "--snippet", type=float, nargs="?", const=-9.0, default=None, metavar="MIN_J",
        help="with --from-json: print the table of judges with J >= MIN_J (all without) and totals",
    )  # fmt: skip
    parser.add_argument(
        "--docs", action="store_true", help="with --from-json: rewrite the README / guide tables"
    )
    args = parser.parse_args()
    if args.from_json is not None:
        stored = json.loads(args.from_json.read_text())
        stored["totals"] = totals(stored["cells"])  # recounted with this version's statements
        if args.snippet is not None:
            print(snippet(stored, args.snippet), end="")
            return
        if args.docs:
            write_docs(stored, str(args.from_json.resolve().relative_to(ROOT)))
            return
        md = args.from_json.with_suffix(".md")
        md.write_text(markdown(stored))
        print(f"wrote {md}")
        return
    start = time.perf_counter()
    result = harness(
        args.datasets, args.sizes, args.splits, args.random_seed, args.verify, args.all_judges,
        args.workers,
    )  # fmt: skip
    result["config"] = {
        "splits": args.splits,
        "sizes": args.sizes,
        "datasets": args.datasets,
        "verify": args.verify,
        "workers": args.workers,
        "random_seed": args.random_seed,
        "level": LEVEL,
        "judgestats_version": judgestats.__version__,
        "ppi_python_version": metadata.version("ppi-python"),
        "cpu_count": os.cpu_count(),
        "load_average": os.getloadavg(),
        "seconds": time.perf_counter() - start,
        "cpu_seconds": sum(
            getattr(resource.getrusage(who), field)
            for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
            for field in ("ru_utime", "ru_stime")
        ),
    }
    name = "real_data" + (f"_{args.tag}" if args.tag else "")
    path = write_results(name, result)
    (RESULTS / f"{name}.md").write_text(markdown(result))
    print(f"wrote {path} and {path.with_suffix('.md')} ({result['config']['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
