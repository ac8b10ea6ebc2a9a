"""Label until sure: coverage at the data-dependent stopping time, and labels needed (issue 28).

Simulation: items truly correct with probability theta, a judge with specificity q0 and
sensitivity q1; labels arrive in batches, each a uniform random sample of the unlabelled items.
After every batch the analyst computes an interval and stops as soon as it is at most ``width``
wide (or when the label budget is spent). Three intervals are compared at that stopping time:

* ``anytime``: the anytime-valid confidence sequence of :mod:`judgestats.sequential` (the
  product's code, :func:`judgestats.sequential.targets.target_steps`);
* ``naive_ppi``: PPI++ for the same target (:func:`judgestats.designs.prediction_powered.
  ppi_pp_counts`, small-sample corrected) recomputed after every batch as if its size were fixed;
* ``naive_cp``: the labels-only Clopper-Pearson interval, recomputed the same way.

Targets: ``items`` (the share of correct items among N = 1,000; the budget is all of them, so
the sequence always ends exact) and ``population`` (theta, N = 20,000 judged items, a budget of
1,000 labels). Labels needed are compared with fixed-size random labelling: the smallest batch
multiple n at which the *median* fixed-size interval (PPI++, or Clopper-Pearson) is at most the
width -- what a planner who fixes n in advance would need.

    python benchmarks/sequential_coverage.py [--quick] [--reps 200] [--jobs 1] [--seed 28]
        [--recheck 1000]

Monte Carlo standard error of a coverage near 0.97 with 200 replications: 0.012; ``--recheck``
reruns the cells below 0.95 with more, fresh replications (the construction's coverage holds by
Ville's inequality; a cell below it by chance should come back above).

Writes benchmarks/results/sequential_coverage.json and .md (``--quick``: ..._quick.*).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import RESULTS, markdown_head, write_results  # noqa: E402

JUDGES = {"weak": (0.65, 0.65), "medium": (0.85, 0.85), "strong": (0.97, 0.97)}
THETAS = (0.02, 0.3, 0.7, 0.98)
BATCHES = (5, 20, 50)
WIDTHS = (0.05, 0.1, 0.2)
TARGETS = ("items", "population")
QUICK = {
    "judges": ("weak", "strong"),
    "thetas": (0.02, 0.7, 0.98),
    "batches": (5, 50),
    "widths": (0.05, 0.2),
}
N_ITEMS, N_POPULATION, BUDGET, LEVEL = 1_000, 20_000, 1_000, 0.95


def simulate(judge, theta, target, reps, rng):
    """Truth and verdicts of the labelled sequences, all verdicts' sum, and the target value."""
    q0, q1 = JUDGES[judge]
    length = N_ITEMS if target == "items" else BUDGET
    truth = (rng.random((reps, length)) < theta).astype(float)
    judged = np.where(truth == 1, rng.random(truth.shape) < q1, rng.random(truth.shape) >= q0)
    judged = judged.astype(float)
    if target == "items":  # i.i.d. items: their index order is a uniform random order
        return truth, judged, judged.sum(axis=1), N_ITEMS, truth.mean(axis=1)
    p = theta * q1 + (1 - theta) * (1 - q0)
    total = judged.sum(axis=1) + rng.binomial(N_POPULATION - BUDGET, p, size=reps)
    return truth, judged, total, N_POPULATION, np.full(reps, theta)


def stop_first(widths, width):
    """Index of the first checkpoint whose width is <= width (the last one if none)."""
    narrow = widths <= width + 1e-12
    return np.where(narrow.any(axis=1), np.argmax(narrow, axis=1), widths.shape[1] - 1)


def anytime(truth, judged, total, size, value, target, batch, width):
    """Stopping time, coverage at it, and whether the width was reached: the sequence."""
    from judgestats.sequential.targets import target_steps

    reps, length = truth.shape
    stopped = np.zeros(reps, dtype=bool)
    labels = np.full(reps, length)
    covered = np.zeros(reps, dtype=bool)
    at = range(batch, length + 1, batch)
    steps = target_steps(total, size, truth, judged, target=target, alpha=1 - LEVEL, at=at)
    for t, low, high in steps:
        now = ~stopped & ((high - low <= width + 1e-12) | (t == length))
        labels[now] = t
        covered[now] = ((low <= value + 1e-12) & (value <= high + 1e-12))[now]
        stopped |= now
        if stopped.all():
            break
    return labels, covered


def fixed_size(truth, judged, total, size, value, target, batch):
    """PPI++ and Clopper-Pearson after every batch, as if each size were fixed: (R, K) arrays."""
    from scipy.special import betaincinv

    from judgestats.designs.prediction_powered import ppi_pp_counts

    length = truth.shape[1] - (1 if target == "items" else 0)  # PPI++ needs an unlabelled item
    at = np.arange(batch, length + 1, batch)
    ones = np.cumsum(truth, axis=1)[:, at - 1]
    agree_one = np.cumsum(truth * judged, axis=1)[:, at - 1]
    agree_zero = np.cumsum((1 - truth) * (1 - judged), axis=1)[:, at - 1]
    judged_labelled = np.cumsum(judged, axis=1)[:, at - 1]
    _, low, high, _ = ppi_pp_counts(
        total[:, None] - judged_labelled,
        size - at[None, :],
        agree_zero,
        at[None, :] - ones,
        agree_one,
        ones,
        target=target,
        confidence_level=LEVEL,
    )
    alpha = 1 - LEVEL
    with np.errstate(invalid="ignore"):
        cp_low = np.where(ones > 0, betaincinv(ones, at - ones + 1, alpha / 2), 0.0)
        cp_high = np.where(ones < at, betaincinv(ones + 1, at - ones, 1 - alpha / 2), 1.0)
    covers = {
        "naive_ppi": (low <= value[:, None] + 1e-12) & (value[:, None] <= high + 1e-12),
        "naive_cp": (cp_low <= value[:, None] + 1e-12) & (value[:, None] <= cp_high + 1e-12),
    }
    return at, {"naive_ppi": high - low, "naive_cp": cp_high - cp_low}, covers


def at_stopping(data, target, batch, width):
    """Coverage and labels at the stopping time: anytime-valid, and naive PPI++ / CP.

    ``data`` as :func:`anytime` takes it (one row per replication); the naive intervals are
    recomputed after every batch and stopped at the first one at most ``width`` wide; the
    fixed-size columns are the labels at which their median width first reaches ``width``.
    """
    labels, covered = anytime(*data, target, batch, width)
    at, widths, covers = fixed_size(*data, target, batch)
    numbers = {
        "anytime_coverage": float(covered.mean()),
        "anytime_median_labels": float(np.median(labels)),
    }
    for name in ("naive_ppi", "naive_cp"):
        stop = stop_first(widths[name], width)
        numbers[f"{name}_coverage"] = float(covers[name][np.arange(stop.size), stop].mean())
        numbers[f"{name}_median_labels"] = float(np.median(at[stop]))
        enough = np.flatnonzero(np.median(widths[name], axis=0) <= width + 1e-12)
        numbers[f"fixed_{name[6:]}_labels"] = float(at[enough[0]]) if enough.size else None
    return numbers


def cell(job):
    """Every number of one (judge, theta, target, batch, width) cell."""
    index, (judge, theta, target, batch, width), reps, seed = job
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))
    data = simulate(judge, theta, target, reps, rng)
    row = {
        "judge": judge,
        "q0": JUDGES[judge][0],
        "q1": JUDGES[judge][1],
        "theta": theta,
        "target": target,
        "batch": batch,
        "width": width,
        "reps": reps,
    }
    row.update(at_stopping(data, target, batch, width))
    return row


def summarise(rows):
    """The verdicts of the issue: coverage in every cell, where the naive fails, labels."""
    worst = min(rows, key=lambda r: r["anytime_coverage"])
    fails = {
        name: sorted(
            (r for r in rows if r[f"{name}_coverage"] < LEVEL),
            key=lambda r: r[f"{name}_coverage"],
        )
        for name in ("naive_ppi", "naive_cp")
    }
    ratios = {
        name: [
            r["anytime_median_labels"] / r[f"fixed_{name}_labels"]
            for r in rows
            if r[f"fixed_{name}_labels"]
        ]
        for name in ("ppi", "cp")
    }
    return {
        "cells": len(rows),
        "anytime_min_coverage": worst["anytime_coverage"],
        "anytime_worst_cell": {k: worst[k] for k in ("judge", "theta", "target", "batch", "width")},
        "anytime_cells_below_level": sum(r["anytime_coverage"] < LEVEL for r in rows),
        "anytime_rechecked": {
            f"{r['judge']} theta={r['theta']} {r['target']} batch={r['batch']} "
            f"width={r['width']}": [r["anytime_coverage"], r["recheck_anytime_coverage"]]
            for r in rows
            if "recheck_reps" in r
        },
        "anytime_cells_below_level_after_recheck": sum(
            r.get("recheck_anytime_coverage", r["anytime_coverage"]) < LEVEL for r in rows
        ),
        **{f"{name}_cells_below_level": len(cells) for name, cells in fails.items()},
        **{f"{name}_min_coverage": min(r[f"{name}_coverage"] for r in rows) for name in fails},
        **{
            f"median_ratio_anytime_to_fixed_{name}_labels": (
                float(np.median(values)) if values else None
            )
            for name, values in ratios.items()
        },
    }


def markdown(rows, summary, command):
    """A table per target: one row per cell."""
    lines = [
        *markdown_head(
            "Label until sure: coverage at stopping (benchmarks/sequential_coverage.py)",
            command,
            summary,
        ),
        "cov = coverage at the stopping time; labels = median labels at stopping; fixed = labels "
        "a fixed-size design needs for a median width <= the target (None: not within the "
        "budget).",
        "",
        "| target | judge | theta | batch | width | anytime cov | anytime labels | PPI++ "
        "recomputed cov | labels | CP recomputed cov | labels | fixed PPI++ | fixed CP |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['target']} | {r['judge']} | {r['theta']} | {r['batch']} | {r['width']} | "
            f"{r['anytime_coverage']:.3f} | {r['anytime_median_labels']:.0f} | "
            f"{r['naive_ppi_coverage']:.3f} | {r['naive_ppi_median_labels']:.0f} | "
            f"{r['naive_cp_coverage']:.3f} | {r['naive_cp_median_labels']:.0f} | "
            f"{r['fixed_ppi_labels']} | {r['fixed_cp_labels']} |"
        )
    return "\n".join(lines) + "\n"


def recheck(rows, cells, args):
    """Rerun the cells below the level with fresh replications; record them in the rows."""
    chosen = [i for i, r in enumerate(rows) if r["anytime_coverage"] < LEVEL]
    jobs = [(i, cells[i], args.recheck, args.seed + 1) for i in chosen]
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            again = list(pool.map(cell, jobs))
    else:
        again = [cell(job) for job in jobs]
    for i, row in zip(chosen, again, strict=True):
        rows[i]["recheck_reps"] = args.recheck
        rows[i]["recheck_anytime_coverage"] = row["anytime_coverage"]


def main(argv=None):
    """Run the grid; print the summary; write JSON and Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small grid, 100 replications")
    parser.add_argument("--reps", type=int, default=None, help="replications per cell")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument(
        "--recheck",
        type=int,
        default=0,
        metavar="REPS",
        help="rerun each cell whose anytime coverage is below the level with REPS fresh "
        "replications (an independent seed)",
    )
    args = parser.parse_args(argv)
    grid = (
        QUICK
        if args.quick
        else {"judges": tuple(JUDGES), "thetas": THETAS, "batches": BATCHES, "widths": WIDTHS}
    )
    reps = args.reps or (100 if args.quick else 200)
    cells = list(
        itertools.product(grid["judges"], grid["thetas"], TARGETS, grid["batches"], grid["widths"])
    )
    jobs = [(i, c, reps, args.seed) for i, c in enumerate(cells)]
    start = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(cell, jobs))
    else:
        rows = [cell(job) for job in jobs]
    if args.recheck:
        recheck(rows, cells, args)
    summary = summarise(rows)
    summary["seconds"] = round(time.perf_counter() - start, 1)
    command = "python benchmarks/sequential_coverage.py" + (" --quick" if args.quick else "")
    command += f" --reps {reps} --seed {args.seed} --jobs {args.jobs}"
    command += f" --recheck {args.recheck}" if args.recheck else ""
    name = "sequential_coverage" + ("_quick" if args.quick else "")
    write_results(name, {"command": command, "summary": summary, "cells": rows})
    (RESULTS / f"{name}.md").write_text(markdown(rows, summary, command))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
