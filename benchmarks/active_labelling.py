"""Active selection by judge scores: coverage at stopping, and labels to reach a width (issue 28).

Simulation: N items with calibrated judge scores, s_i ~ Beta(kappa * theta, kappa * (1 - theta))
and truth Y_i ~ Bernoulli(s_i) (so E[Y] = theta); a small kappa puts the scores near 0 and 1 (a
strong judge), a large one near theta (a weak judge). The target is the items' share
S = mean(Y). The analyst labels in batches and stops after the first batch whose interval is at
most ``width`` wide. Two designs, each with the product's code:

* ``active``: :class:`judgestats.LabellingSession` with ``scores`` -- a labelling order drawn
  without replacement with weights favouring uncertain items, and the inverse-probability-
  weighted confidence sequence (:mod:`judgestats.sequential.active`: the same order, increments
  and interval, vectorised over replications);
* ``uniform``: today's session without scores -- uniform random batches and the verdict-based
  confidence sequence (:func:`judgestats.sequential.targets.target_steps`), the verdict being
  1[s >= 0.5].

Per cell: coverage of S at the stopping time (both designs) and the median labels at stopping;
``ratio`` = active / uniform median labels. One simulation per (judge, theta) serves every
batch size and width (the stopping rule only reads the path).

    python benchmarks/active_labelling.py [--quick] [--reps 200] [--seed 28] [--floor 0.6]
        [--cap C] [--recheck 1000]

Monte Carlo standard error of a coverage near 0.95 with 100 replications: 0.022; ``--recheck``
reruns the cells whose active or uniform coverage is below 0.95 with more, fresh replications
(the seed stream [seed, judge, theta, 1] instead of the main pass's [seed, judge, theta]; both
constructions' coverage holds by Ville's inequality, so a cell below it by chance should come
back above) and records, per rechecked cell, both coverages on recheck, their Monte Carlo
standard errors, and whether each is below 0.95 by more than two of them.

Writes benchmarks/results/active_labelling.json and .md (``--quick``: ..._quick.*; ``--cap``, a
fixed truncation of the active bets instead of the variance-driven one: ..._cap<C>.*, an
ablation; a seed other than 28: ..._seed<S>.*).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import RESULTS, write_results  # noqa: E402

from judgestats.sequential.active import MIN_PROBABILITY  # noqa: E402

JUDGES = {"weak": 20.0, "medium": 2.0, "strong": 0.5, "very strong": 0.1}
THETAS = (0.3, 0.7, 0.9)
BATCHES = (5, 20, 50)
WIDTHS = (0.05, 0.1, 0.2)
QUICK = {"judges": ("weak", "strong"), "thetas": (0.7,), "batches": (20,), "widths": (0.1, 0.2)}
N_ITEMS, LEVEL, SEED = 2_000, 0.95, 28
DESIGNS = ("active", "uniform")


def population(kappa, theta, reps, rng):
    """Scores and truths, shape (R, N)."""
    scores = rng.beta(kappa * theta, kappa * (1 - theta), size=(reps, N_ITEMS))
    scores = np.clip(scores, 0.0, 1.0)
    return scores, (rng.random(scores.shape) < scores).astype(float)


def active_path(scores, truth, rng, floor, cap):
    """Per label t = 1..N: the active interval's ends, with what the labels settle."""
    from judgestats.sequential.active import (
        active_interval,
        draw_order,
        ipw_increments,
        selection_probabilities,
    )

    reps, size = scores.shape
    weights = selection_probabilities(scores, floor)
    order = draw_order(weights, rng)
    labels = np.take_along_axis(truth, order, axis=1)
    phi, low_t, high_t = ipw_increments(scores, weights, order, labels)
    known = np.cumsum(labels, axis=1)
    sure_low, sure_high = known / size, (known + size - np.arange(1, size + 1)) / size
    low, high = sure_low.copy(), sure_high.copy()
    last = size
    for t, low_cs, high_cs in active_interval(phi, (low_t, high_t), size, alpha=1 - LEVEL, cap=cap):
        lo, hi = sure_low[:, t - 1], sure_high[:, t - 1]
        inside = (low_cs <= hi) & (high_cs >= lo)
        low[:, t - 1] = np.where(inside, np.maximum(low_cs, lo), lo)
        high[:, t - 1] = np.where(inside, np.minimum(high_cs, hi), hi)
        if last == size and np.all(high[:, t - 1] - low[:, t - 1] <= min(WIDTHS) + 1e-12):
            last = min(size, t + max(BATCHES))  # every stop falls before the next batch ends
        if t >= last:  # the widths only shrink: later intervals are never read
            low[:, t:], high[:, t:] = low[:, t - 1 : t], high[:, t - 1 : t]
            break
    return low, high


def uniform_path(scores, truth):
    """The verdict-based sequence after every label (uniform order = index order)."""
    from judgestats.sequential.targets import target_steps

    judged = (scores >= 0.5).astype(float)
    low, high = np.empty(truth.shape), np.empty(truth.shape)
    steps = target_steps(
        judged.sum(axis=1), N_ITEMS, truth, judged, target="items", alpha=1 - LEVEL
    )
    for t, low_t, high_t in steps:
        low[:, t - 1], high[:, t - 1] = low_t, high_t
    return low, high


def stop_at_width(path, value, batch, width):
    """Labels and coverage after the first batch narrow enough (all labels if none)."""
    low, high = path
    at = np.arange(batch, N_ITEMS + 1, batch) - 1
    narrow = high[:, at] - low[:, at] <= width + 1e-12
    index = at[np.where(narrow.any(axis=1), np.argmax(narrow, axis=1), at.size - 1)]
    rows = np.arange(low.shape[0])
    lo, hi = low[rows, index], high[rows, index]
    return index + 1, (lo <= value + 1e-12) & (value <= hi + 1e-12)


def simulation(judge, theta, grid, reps, seed, floor, cap, stream=()):
    """Every (batch, width) cell of one (judge, theta); ``stream`` extends the seed (recheck)."""
    rng = np.random.default_rng([seed, list(JUDGES).index(judge), int(theta * 100), *stream])
    scores, truth = population(JUDGES[judge], theta, reps, rng)
    value = truth.mean(axis=1)
    active, uniform = active_path(scores, truth, rng, floor, cap), uniform_path(scores, truth)
    rows = []
    for batch, width in itertools.product(grid["batches"], grid["widths"]):
        labels_a, cover_a = stop_at_width(active, value, batch, width)
        labels_u, cover_u = stop_at_width(uniform, value, batch, width)
        median_a, median_u = float(np.median(labels_a)), float(np.median(labels_u))
        rows.append(
            {
                "judge": judge,
                "kappa": JUDGES[judge],
                "theta": theta,
                "batch": batch,
                "width": width,
                "coverage_active": round(float(cover_a.mean()), 4),
                "coverage_uniform": round(float(cover_u.mean()), 4),
                "labels_active": median_a,
                "labels_uniform": median_u,
                "ratio": round(median_a / median_u, 4),
            }
        )
    return rows


def summarise(rows):
    """Worst coverages and the median / largest label ratios (and the recheck, if any)."""
    ratios = [row["ratio"] for row in rows]
    summary = {
        "cells": len(rows),
        "min_coverage_active": min(row["coverage_active"] for row in rows),
        "min_coverage_uniform": min(row["coverage_uniform"] for row in rows),
        "median_ratio": round(float(np.median(ratios)), 4),
        "max_ratio": max(ratios),
        "cells_ratio_above_1.05": sum(r > 1.05 for r in ratios),
    }
    rechecked = [row for row in rows if "recheck" in row]
    if rechecked:
        summary["recheck_reps"] = rechecked[0]["recheck"]["reps"]
        summary["cells_rechecked"] = len(rechecked)
        for design in DESIGNS:
            after = [row.get("recheck", {}).get(design, {}).get("coverage") for row in rows]
            after = [
                a if a is not None else row[f"coverage_{design}"]
                for a, row in zip(after, rows, strict=True)
            ]
            summary[f"{design}_cells_below_level_after_recheck"] = sum(a < LEVEL for a in after)
            summary[f"{design}_cells_below_level_by_2se_after_recheck"] = sum(
                row["recheck"][design]["below_by_2se"]
                for row in rechecked
                if design in row["recheck"]
            )
    return summary


def recheck(rows, grid, reps, seed, floor, cap):
    """Rerun the cells whose active or uniform coverage is below the level; record them.

    Fresh replications from the seed stream [seed, judge, theta, 1]; per design below the level
    in the main pass: its coverage on recheck, the Monte Carlo standard error, and whether it is
    below the level by more than two of them.
    """
    chosen = [r for r in rows if min(r["coverage_active"], r["coverage_uniform"]) < LEVEL]
    for judge, theta in dict.fromkeys((r["judge"], r["theta"]) for r in chosen):
        again = simulation(judge, theta, grid, reps, seed, floor, cap, stream=(1,))
        again = {(r["batch"], r["width"]): r for r in again}
        for row in chosen:
            if (row["judge"], row["theta"]) != (judge, theta):
                continue
            new = again[row["batch"], row["width"]]
            row["recheck"] = {"reps": reps}
            for design in DESIGNS:
                first, coverage = row[f"coverage_{design}"], new[f"coverage_{design}"]
                se = float(np.sqrt(coverage * (1 - coverage) / reps))
                row["recheck"][design] = {
                    "first_pass": first,
                    "coverage": coverage,
                    "se": round(se, 4),
                    "below_by_2se": bool(coverage < LEVEL - 2 * se),
                }


def markdown(rows, summary, command):
    """The cells as a Markdown table."""
    keys = [k for k in rows[0] if k != "recheck"]
    lines = [f"`{command}`", "", "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(row[k]) for k in keys) + " |" for row in rows]
    lines += ["", "```", json.dumps(summary, indent=1), "```", ""]
    rechecked = [row for row in rows if "recheck" in row]
    if rechecked:
        reps = rechecked[0]["recheck"]["reps"]
        lines += [
            f"Recheck: the cells whose active or uniform coverage at stopping is below {LEVEL}, "
            f"rerun with {reps} fresh replications (seed stream [seed, judge, theta, 1]). "
            "first = coverage in the main pass; recheck = on the fresh replications; SE = its "
            f"Monte Carlo standard error; below by 2 SE = recheck < {LEVEL} - 2 SE.",
            "",
            "| judge | theta | batch | width | design | first | recheck | SE | below by 2 SE |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for row in rechecked:
            for design in DESIGNS:
                r = row["recheck"][design]
                lines.append(
                    f"| {row['judge']} | {row['theta']} | {row['batch']} | {row['width']} | "
                    f"{design} | {r['first_pass']} | {r['coverage']} | {r['se']} | "
                    f"{'yes' if r['below_by_2se'] else 'no'} |"
                )
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    """Run the grid; print the summary; write JSON and Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small grid, 50 replications")
    parser.add_argument("--reps", type=int, default=None, help="replications per cell")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--floor", type=float, default=MIN_PROBABILITY, help="the selection probabilities' floor"
    )
    parser.add_argument(
        "--cap", type=float, default=None, help="a fixed truncation c in (0, 1) of the active bets"
    )
    parser.add_argument(
        "--recheck",
        type=int,
        default=0,
        metavar="REPS",
        help="rerun each cell whose active or uniform coverage is below the level with REPS "
        "fresh replications (an independent seed stream)",
    )
    args = parser.parse_args(argv)
    if args.cap is not None and not 0.0 < args.cap < 1.0:
        parser.error(f"--cap ({args.cap}) must lie in (0, 1)")
    grid = (
        QUICK
        if args.quick
        else {"judges": tuple(JUDGES), "thetas": THETAS, "batches": BATCHES, "widths": WIDTHS}
    )
    reps = args.reps or (50 if args.quick else 200)
    start = time.perf_counter()
    rows = []
    for judge, theta in itertools.product(grid["judges"], grid["thetas"]):
        rows += simulation(judge, theta, grid, reps, args.seed, args.floor, args.cap)
    if args.recheck:
        recheck(rows, grid, args.recheck, args.seed, args.floor, args.cap)
    summary = summarise(rows)
    summary["seconds"] = round(time.perf_counter() - start, 1)
    command = "python benchmarks/active_labelling.py" + (" --quick" if args.quick else "")
    command += f" --reps {reps} --seed {args.seed} --floor {args.floor}"
    command += f" --recheck {args.recheck}" if args.recheck else ""
    name = "active_labelling" + ("_quick" if args.quick else "")
    if args.cap is not None:  # an ablation: kept apart from the main results
        command += f" --cap {args.cap}"
        name += f"_cap{args.cap}"
    if args.seed != SEED:  # another draw of the same grid: its Monte Carlo spread
        name += f"_seed{args.seed}"
    write_results(name, {"command": command, "summary": summary, "cells": rows})
    (RESULTS / f"{name}.md").write_text(markdown(rows, summary, command))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
