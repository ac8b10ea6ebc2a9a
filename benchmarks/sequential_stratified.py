"""Label until sure, stratified design: coverage at the data-dependent stop (issue 28, item 1).

Simulation: a test set of n = 2,000 items judged correct with probability
p = theta q1 + (1 - theta)(1 - q0); two calibration arms of i.i.d. items (truly incorrect: the
judge is right with probability q0; truly correct: q1). Calibration items arrive in batches of
``--batch``, allocated between the arms by sequential Algorithm 1
(:func:`judgestats.sequential.stratified.next_arm`, the rule of
:class:`judgestats.sequential.StratifiedLabellingSession`); after every batch the analyst
stops as soon as the interval is at most ``width`` wide, or when ``--budget`` items are spent.
Two intervals at that stop:

* ``anytime``: the product's interval (:mod:`judgestats.sequential.stratified`: the arms'
  betting confidence sequences and Clopper-Pearson for p, alpha / 3 each, through the
  Rogan-Gladen map's range over the box);
* ``naive LR``: the Lang-Reiczigel interval (:func:`judgestats.lang_reiczigel_ci`) recomputed
  after every batch as if the sample size were fixed, with the same allocation rule.

    python benchmarks/sequential_stratified.py [--reps 200] [--seed 28] [--batch 20]
        [--budget 1200]

Monte Carlo standard error of a coverage near 0.97 with 200 replications: 0.012.
Writes benchmarks/results/sequential_stratified.json and .md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import RESULTS, markdown_head, write_results  # noqa: E402

JUDGES = {"medium": (0.85, 0.85), "skewed": (0.95, 0.8), "strong": (0.97, 0.97)}
THETAS = (0.02, 0.3, 0.7, 0.98)
WIDTHS = (0.2, 0.3)
N_TEST, LEVEL = 2_000, 0.95


def simulate_cell(judge, theta, width, reps, batch, budget, rng):
    """Coverage and labels at the stop: the anytime interval and the naive recomputed one."""
    from judgestats import JudgeStatsWarning, lang_reiczigel_ci
    from judgestats.planning.algorithm1 import smoothed_pilot
    from judgestats.sequential.stratified import arm_bounds, next_arm, rogan_gladen_box
    from judgestats.sequential.targets import verdict_interval

    q0, q1 = JUDGES[judge]
    alpha = 1.0 - LEVEL
    k = rng.binomial(N_TEST, theta * q1 + (1 - theta) * (1 - q0), size=reps)
    hits = [(rng.random((reps, budget)) < q).astype(float) for q in (q0, q1)]
    sums = [np.concatenate([np.zeros((reps, 1)), np.cumsum(h, axis=1)], axis=1) for h in hits]
    bounds = [arm_bounds(h, alpha / 3.0) for h in hits]
    p_ends = verdict_interval(k.astype(float), N_TEST, alpha / 3.0)
    rows = np.arange(reps)
    m = [np.zeros(reps, dtype=np.int64), np.zeros(reps, dtype=np.int64)]
    result = {}
    for name in ("anytime", "naive"):
        result[name] = {
            "stop": np.full(reps, budget),
            "covered": np.zeros(reps, dtype=bool),
            "done": np.zeros(reps, dtype=bool),
        }
    for _ in range(budget // batch):
        tilde = [smoothed_pilot(sums[a][rows, m[a]], m[a]) for a in (0, 1)]
        for _ in range(batch):
            arm = next_arm(m[0], m[1], tilde[0], tilde[1], k / N_TEST)
            m[0], m[1] = m[0] + (arm == 0), m[1] + (arm == 1)
        ends = [(bounds[a][0][rows, m[a] - 1], bounds[a][1][rows, m[a] - 1]) for a in (0, 1)]
        low, high = rogan_gladen_box(p_ends, ends[0], ends[1])
        counts = [sums[a][rows, m[a]] for a in (0, 1)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JudgeStatsWarning)  # no-correction elements: NaN
            naive = lang_reiczigel_ci(
                k / N_TEST, counts[0] / m[0], counts[1] / m[1], N_TEST, m[0], m[1]
            )
        total = m[0] + m[1]
        last = total >= budget
        for name, (lo, hi) in (("anytime", (low, high)), ("naive", naive)):
            state = result[name]
            now = ~state["done"] & ((hi - lo <= width + 1e-12) | last)
            state["stop"] = np.where(now, total, state["stop"])
            state["covered"] |= now & (lo <= theta + 1e-12) & (theta <= hi + 1e-12)
            state["done"] |= now
        if result["anytime"]["done"].all() and result["naive"]["done"].all():
            break
    return {
        f"{name}_{key}": value
        for name, state in result.items()
        for key, value in (
            ("coverage", float(state["covered"].mean())),
            ("median_labels", float(np.median(state["stop"]))),
            ("reached", float((state["done"] & (state["stop"] < budget)).mean())),
        )
    }


def markdown(rows, summary, command):
    """The summary, then one row per cell."""
    title = "Label until sure, stratified design: coverage at stopping "
    title += "(benchmarks/sequential_stratified.py)"
    lines = [
        *markdown_head(title, command, summary),
        "cov = coverage of theta at the stop; labels = median calibration items at the stop "
        "(the budget where the width was not reached); reached = share of replications that "
        "reached the width within the budget.",
        "",
        "| judge (q0, q1) | theta | width | anytime cov | labels | reached | naive LR cov | "
        "labels | reached |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['judge']} ({r['q0']}, {r['q1']}) | {r['theta']} | {r['width']} | "
            f"{r['anytime_coverage']:.3f} | {r['anytime_median_labels']:.0f} | "
            f"{r['anytime_reached']:.2f} | {r['naive_coverage']:.3f} | "
            f"{r['naive_median_labels']:.0f} | {r['naive_reached']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None):
    """Run the grid; print the summary; write JSON and Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200, help="replications per cell")
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--budget", type=int, default=1200, help="calibration items at most")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = []
    for index, (judge, theta, width) in enumerate(itertools.product(JUDGES, THETAS, WIDTHS)):
        rng = np.random.default_rng(np.random.SeedSequence(args.seed, spawn_key=(index,)))
        row = {"judge": judge, "q0": JUDGES[judge][0], "q1": JUDGES[judge][1]}
        row.update({"theta": theta, "width": width, "reps": args.reps})
        row.update(simulate_cell(judge, theta, width, args.reps, args.batch, args.budget, rng))
        rows.append(row)
    worst = min(rows, key=lambda r: r["anytime_coverage"])
    summary = {
        "cells": len(rows),
        "anytime_min_coverage": worst["anytime_coverage"],
        "anytime_worst_cell": {k: worst[k] for k in ("judge", "theta", "width")},
        "anytime_cells_below_level": sum(r["anytime_coverage"] < LEVEL for r in rows),
        "naive_min_coverage": min(r["naive_coverage"] for r in rows),
        "naive_cells_below_level": sum(r["naive_coverage"] < LEVEL for r in rows),
        "median_ratio_anytime_to_naive_labels": float(
            np.median([r["anytime_median_labels"] / r["naive_median_labels"] for r in rows])
        ),
        "seconds": round(time.perf_counter() - start, 1),
    }
    command = (
        f"python benchmarks/sequential_stratified.py --reps {args.reps} --seed {args.seed} "
        f"--batch {args.batch} --budget {args.budget}"
    )
    write_results("sequential_stratified", {"command": command, "summary": summary, "cells": rows})
    (RESULTS / "sequential_stratified.md").write_text(markdown(rows, summary, command))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
