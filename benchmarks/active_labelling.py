"""Active selection by judge scores: coverage at stopping, and labels to reach a width (issue 28).

Simulation: N items with calibrated judge scores, s_i ~ Beta(kappa * theta, kappa * (1 - theta))
and truth Y_i ~ Bernoulli(s_i) (so E[Y] = theta); a small kappa puts the scores near 0 and 1 (a
strong judge), a large one near theta (a weak judge). The target is the items' share
S = mean(Y). The analyst labels in batches and stops after the first batch whose interval is at
most ``width`` wide. Two designs, each with the product's code:

* ``active``: :class:`judgestats.LabellingSession` with ``scores`` -- selection probabilities
  favouring uncertain items and the inverse-probability-weighted confidence sequence
  (:mod:`judgestats.sequential.active`: the same draws, increments and interval, vectorised
  over replications);
* ``uniform``: today's session without scores -- uniform random batches and the verdict-based
  confidence sequence (:func:`judgestats.sequential.targets.target_steps`), the verdict being
  1[s >= 0.5].

Per cell: coverage of S at the stopping time (both designs) and the median labels at stopping;
``ratio`` = active / uniform median labels. One simulation per (judge, theta) serves every
batch size and width (the stopping rule only reads the path).

    python benchmarks/active_labelling.py [--quick] [--reps 200] [--seed 28] [--floor 0.6]

Writes benchmarks/results/active_labelling.json and .md (``--quick``: ..._quick.*).
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
N_ITEMS, LEVEL, DRAWS = 2_000, 0.95, 3


def population(kappa, theta, reps, rng):
    """Scores and truths, shape (R, N)."""
    scores = rng.beta(kappa * theta, kappa * (1 - theta), size=(reps, N_ITEMS))
    scores = np.clip(scores, 0.0, 1.0)
    return scores, (rng.random(scores.shape) < scores).astype(float)


def active_path(scores, truth, rng, floor):
    """Per draw: interval ends (with what the labels settle), labels before it, new-label flag."""
    from judgestats.sequential.active import (
        active_interval,
        ipw_range,
        ipw_values,
        selection_probabilities,
    )

    reps, size = scores.shape
    probs = selection_probabilities(scores, floor)
    rows = np.arange(reps)[:, None]
    items = rng.integers(0, size, size=(reps, DRAWS * size))
    selected = rng.random(items.shape) < probs[rows, items]
    first = np.full((reps, size), items.shape[1])
    for r in range(reps):  # the first draw that selects each item
        hit = np.flatnonzero(selected[r])
        np.minimum.at(first[r], items[r, hit], hit)
    new = selected & (first[rows, items] == np.arange(items.shape[1]))
    before = np.cumsum(new, axis=1) - new  # labels given before draw t (0-based)
    known = np.cumsum(new * truth[rows, items], axis=1) - new * truth[rows, items]
    phi = ipw_values(
        scores.mean(axis=1), scores[rows, items], probs[rows, items], selected, truth[rows, items]
    )
    low, high = np.zeros(phi.shape), np.ones(phi.shape)
    steps = active_interval(phi, ipw_range(scores, probs), size, alpha=1 - LEVEL)
    for t, low_t, high_t in steps:  # interval after draws 0..t-1, read before draw t
        if t < phi.shape[1]:
            low[:, t], high[:, t] = low_t, high_t
    sure_low, sure_high = known / size, (known + size - before) / size
    inside = (low <= sure_high) & (high >= sure_low)
    low = np.where(inside, np.maximum(low, sure_low), sure_low)
    high = np.where(inside, np.minimum(high, sure_high), sure_high)
    return low, high, before, new


def stop_active(path, value, batch, width):
    """Labels and coverage at the first checkpoint narrow enough (the last if none).

    A checkpoint is a draw that needs a new label after a whole number of batches.
    """
    low, high, before, new = path
    check = new & (before % batch == 0) & (before > 0)
    ok = check & (high - low <= width + 1e-12)
    last = check.shape[1] - 1 - np.argmax(check[:, ::-1], axis=1)
    index = np.where(ok.any(axis=1), np.argmax(ok, axis=1), last)
    rows = np.arange(low.shape[0])
    lo, hi = low[rows, index], high[rows, index]
    return before[rows, index], (lo <= value + 1e-12) & (value <= hi + 1e-12)


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


def stop_uniform(path, value, batch, width):
    """Labels and coverage after the first batch narrow enough (all labels if none)."""
    low, high = path
    at = np.arange(batch, N_ITEMS + 1, batch) - 1
    narrow = high[:, at] - low[:, at] <= width + 1e-12
    index = at[np.where(narrow.any(axis=1), np.argmax(narrow, axis=1), at.size - 1)]
    rows = np.arange(low.shape[0])
    lo, hi = low[rows, index], high[rows, index]
    return index + 1, (lo <= value + 1e-12) & (value <= hi + 1e-12)


def simulation(judge, theta, grid, reps, seed, floor):
    """Every (batch, width) cell of one (judge, theta)."""
    rng = np.random.default_rng([seed, list(JUDGES).index(judge), int(theta * 100)])
    scores, truth = population(JUDGES[judge], theta, reps, rng)
    value = truth.mean(axis=1)
    active, uniform = active_path(scores, truth, rng, floor), uniform_path(scores, truth)
    rows = []
    for batch, width in itertools.product(grid["batches"], grid["widths"]):
        labels_a, cover_a = stop_active(active, value, batch, width)
        labels_u, cover_u = stop_uniform(uniform, value, batch, width)
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
    """Worst coverages and the median / largest label ratios."""
    ratios = [row["ratio"] for row in rows]
    return {
        "cells": len(rows),
        "min_coverage_active": min(row["coverage_active"] for row in rows),
        "min_coverage_uniform": min(row["coverage_uniform"] for row in rows),
        "median_ratio": round(float(np.median(ratios)), 4),
        "max_ratio": max(ratios),
        "cells_ratio_above_1.05": sum(r > 1.05 for r in ratios),
    }


def markdown(rows, summary, command):
    """The cells as a Markdown table."""
    keys = list(rows[0])
    lines = [f"`{command}`", "", "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(row[k]) for k in keys) + " |" for row in rows]
    lines += ["", "```", json.dumps(summary, indent=1), "```", ""]
    return "\n".join(lines)


def main(argv=None):
    """Run the grid; print the summary; write JSON and Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small grid, 50 replications")
    parser.add_argument("--reps", type=int, default=None, help="replications per cell")
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument(
        "--floor", type=float, default=MIN_PROBABILITY, help="the selection probabilities' floor"
    )
    args = parser.parse_args(argv)
    grid = (
        QUICK
        if args.quick
        else {"judges": tuple(JUDGES), "thetas": THETAS, "batches": BATCHES, "widths": WIDTHS}
    )
    reps = args.reps or (50 if args.quick else 200)
    start = time.perf_counter()
    rows = []
    for judge, theta in itertools.product(grid["judges"], grid["thetas"]):
        rows += simulation(judge, theta, grid, reps, args.seed, args.floor)
    summary = summarise(rows)
    summary["seconds"] = round(time.perf_counter() - start, 1)
    command = "python benchmarks/active_labelling.py" + (" --quick" if args.quick else "")
    command += f" --reps {reps} --seed {args.seed} --floor {args.floor}"
    name = "active_labelling" + ("_quick" if args.quick else "")
    write_results(name, {"command": command, "summary": summary, "cells": rows})
    (RESULTS / f"{name}.md").write_text(markdown(rows, summary, command))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
