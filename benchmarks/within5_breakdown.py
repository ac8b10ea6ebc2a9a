"""Why the recommended interval is not within 5% of ppi-python's PPI++ (issue 24), cell by cell.

Cells: benchmarks/random_design.py's grid, both targets, on ``--reps`` fresh replications
(``--seed``), and benchmarks/real_data.py's cells on its splits (ppi-python clipped to [0, 1] as
there). Where ppi-python (``ppi_counts(lam=None, adjust=False)``) covers >= 0.945 and the
recommended interval's mean width is > 1.05 x its, each replication gets a reason: ``ppi_pp`` (b):
the rule picked our PPI++, whose small-sample correction (pseudo-items, lambda jackknife, Student
t) costs width; ``raised``: it picked our PPI++ at a level its regime's steps raise above 95%, or
picked Blaker because the raise took away PPI++'s 5% margin; Blaker picked (a), as ppi_pp was
``banned`` in a cell of the regime (eligible without bans) or ``below_threshold`` (table coverage
below c_min there), or eligible but not PICK_MARGIN narrower (``margin``); ``other``: outside the
table, no finite positive ppi_pp, the stratified rule (real data). A cell's excess, mean(rule -
ppi-python width), is the sum of each reason's part; the dominant reason has the largest.
``neighbourhood`` (grid cells where ineligibility dominates): ppi-python's
(results/random_design.json) and ppi_pp's (the table) lowest coverage and ppi_pp's bans over the
cell and its q0, q1, theta neighbours.

    python benchmarks/within5_breakdown.py [--reps 2000] [--seed 5] [--workers 2]
        [--variant shipped|no_raises]

Writes benchmarks/results/within5_breakdown.json and .md. ``--variant no_raises`` asks what the
raises cost: the shipped table with every cell's PPI++ level at the lowest step (93%) and no
bans, so the rule picks as the table's coverage and margin allow but never raises a level (files
``within5_breakdown_no_raises.*``). Beside the width counts, every cell's rule coverage on the
same replications: the cells below 0.945 and below 0.945 - 2 SE show what the raises buy."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_data  # noqa: E402
from _env import RESULTS, write_results  # noqa: E402
from _random_grid import LEVEL, M_GRID, N_GRID, Q_GRID, TARGETS, THETA_GRID  # noqa: E402
from random_design import _blocks, _map, _recommended, measure, simulate  # noqa: E402

VARIANTS = ("shipped", "no_raises")
REASONS = ("ppi_pp", "raised", "banned", "below_threshold", "margin", "other")
SUMS = ("reps", "rule", "ppi", "own", "own_reps", "clear")


def reasons(counts, intervals, choice, target, table, free):
    """Per replication, the index into :data:`REASONS`; ``free``: ``table`` without bans."""
    from judgestats.recommendation.random_rule import (
        EXACT,
        NOMINAL_STEP,
        PICK_MARGIN,
        random_regime_coverage,
    )

    flat = tuple(np.asarray(c).reshape(-1) for c in counts)
    regime = random_regime_coverage(flat, LEVEL, target, table=table)
    margin, step = regime.margin[:, 0], regime.step[:, 0]
    loose = random_regime_coverage(flat, LEVEL, target, table=free).margin[:, 0]
    low, high = (np.asarray(x, dtype=float).reshape(-1) for x in intervals["ppi_pp"])
    with np.errstate(invalid="ignore"):
        usable = np.isfinite(high - low) & (high - low > 0)
        out = np.full(flat[0].shape, REASONS.index("other"))
        out[loose >= 0] = REASONS.index("banned")
        out[loose < 0] = REASONS.index("below_threshold")
        out[(margin >= 0) & usable] = REASONS.index("margin")
    picked = choice.reshape(-1) == 0
    out[picked] = REASONS.index("ppi_pp")
    b_low, b_high = (np.asarray(x, dtype=float).reshape(-1) for x in intervals[EXACT])
    with np.errstate(invalid="ignore"):
        above = step > NOMINAL_STEP  # raised above 95% (a lowered pick counts as ppi_pp)
        out[picked & above] = REASONS.index("raised")
        # eligible, and picked at 95%, but not at the raised level: the raise sent it to Blaker
        narrow95 = usable & (high - low <= (1 - PICK_MARGIN) * (b_high - b_low))
        out[~picked & (margin >= 0) & above & narrow95] = REASONS.index("raised")
    return out.reshape(np.shape(choice))


def tally(reason, low, high, intervals):
    """Sums over the last axis, arrays (reason, ...): widths of the pick, ppi-python and ppi_pp
    (own), and ``clear``, replications where ppi-python is PICK_MARGIN narrower than Blaker."""
    from judgestats.recommendation.random_rule import PICK_MARGIN

    ppi, own, blaker = (intervals[k][1] - intervals[k][0] for k in
                        ("ppi_python", "ppi_pp", "labels_only_blaker"))  # fmt: skip
    ok, mine = np.isfinite(ppi), np.isfinite(ppi) & np.isfinite(own)
    clear = ok & (ppi <= (1 - PICK_MARGIN) * blaker)
    parts = dict(reps=(ok, 1.0), rule=(ok, high - low), ppi=(ok, ppi), own=(mine, own),
                 own_reps=(mine, 1.0), clear=(clear, 1.0))  # fmt: skip
    return {k: np.stack([np.where((reason == r) & w, v, 0.0).sum(-1) for r in range(len(REASONS))])
            for k, (w, v) in parts.items()}  # fmt: skip


def analyse(counts, truth, m, n, target, table, free, override=None):
    """ppi-python's and the rule's coverage and width, and the reason sums, on ``counts``;
    ``override`` (real data): the stratified rule's (mask, low, high); clips ppi-python."""
    choice, low, high, intervals = _recommended(counts, m, n, target, table)
    reason = reasons(counts, intervals, choice, target, table, free)
    if override is not None:
        mask, new_low, new_high = override
        low, high = np.where(mask, new_low, low), np.where(mask, new_high, high)
        reason[mask] = REASONS.index("other")
        intervals["ppi_python"] = tuple(np.clip(x, 0.0, 1.0) for x in intervals["ppi_python"])
    got = measure({"ppi_python": intervals["ppi_python"], "rule": (low, high)}, truth)
    return got, tally(reason, low, high, intervals), (choice, low, high)


def _block(task):
    """One (m, n) block of the grid: per target (measure's dict, the reason sums)."""
    (a, b, m, n), reps, seed, table, free = task
    counts, truth = simulate(m, n, reps, np.random.default_rng([seed, 55, m, n]))
    return (a, b), [analyse(counts, truth[t], m, n, t, table, free)[:2] for t in TARGETS]


def grid_pass(reps, seed, workers, table, free):
    """Every grid cell: dict target -> (coverage, rule width, ppi width, sums), cells flattened."""
    shape = (M_GRID.size, N_GRID.size, Q_GRID.size, Q_GRID.size, THETA_GRID.size)
    keys = ("coverage", "rule_coverage", "rule_width", "ppi_width", *SUMS)
    out = {t: {k: np.full((len(REASONS), *shape) if k in SUMS else shape, np.nan) for k in keys}
           for t in TARGETS}  # fmt: skip
    tasks = [(block, reps, seed, table, free) for block in _blocks()]
    for (a, b), per_target in _map(_block, tasks, workers):
        for target, (got, sums) in zip(TARGETS, per_target, strict=True):
            o = out[target]
            o["coverage"][a, b], o["ppi_width"][a, b] = got["ppi_python"][:2]
            o["rule_coverage"][a, b], o["rule_width"][a, b] = got["rule"][:2]
            for k in SUMS:
                o[k][:, a, b] = sums[k]
    grid = np.meshgrid(M_GRID, N_GRID, Q_GRID, Q_GRID, THETA_GRID, indexing="ij")
    labels = {"labels": np.stack(grid, -1).reshape(-1, 5).tolist()}  # m, n, q0, q1, theta
    return {t: {k: v.reshape(len(REASONS), -1) if k in SUMS else v.reshape(-1)
                for k, v in d.items()} | labels for t, d in out.items()}  # fmt: skip


def _ratio(num, den):
    """num / den, NaN where den is 0."""
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def summarise(cells, reps_per_cell, neighbourhood=None):
    """Failing cells, their dominant reasons, shares and median width ratios (one target), and
    the cells where the rule covers less than 0.945 (by 2 Monte Carlo SE at ``reps_per_cell``)."""
    judged = cells["coverage"] >= (cover := real_data.COVERAGE_TARGET)
    floor = cover - 2.0 * np.sqrt(LEVEL * (1.0 - LEVEL) / reps_per_cell)
    fail = judged & (cells["rule_width"] > real_data.PPI_SLACK * cells["ppi_width"])
    reps = cells["reps"].sum(axis=0)
    excess = _ratio(cells["rule"] - cells["ppi"], reps[None])  # (reason, cell), mean parts
    dominant = np.argmax(np.where(np.isnan(excess), -np.inf, excess), axis=0)
    within = _ratio(cells["rule"], cells["ppi"])  # rule / ppi-python on a reason's replications
    own = _ratio(_ratio(cells["own"], cells["own_reps"]), _ratio(cells["ppi"], cells["reps"]))
    out = {"cells": int(judged.size), "ppi_python_covers": int(judged.sum()),
           "within_5pct": int((judged & ~fail).sum()), "failing": int(fail.sum()),
           "rule_below_0.945": int((cells["rule_coverage"] < cover).sum()),
           "rule_below_by_2se": int((cells["rule_coverage"] < floor).sum()),
           "rule_min_coverage": _median(cells["rule_coverage"], np.min),
           "by_dominant_reason": {}, "per_reason": {}, "failing_cells": []}  # fmt: skip
    ratio, near = cells["rule_width"] / cells["ppi_width"], []
    for r, name in enumerate(REASONS):
        mine = fail & (dominant == r)
        share = _ratio(cells["reps"][r], reps)
        big = fail & (share >= 0.01)
        cleared = _ratio(cells["clear"][r], cells["reps"][r])[big]
        out["by_dominant_reason"][name] = {"cells": int(mine.sum()),
            "median_rule_over_ppi_python": _median(ratio[mine])}  # fmt: skip
        out["per_reason"][name] = {"mean_share": _median(share[fail], np.mean),
            "median_rule_over_ppi_python": _median(within[r][big]),
            "median_ppi_pp_over_ppi_python": _median(own[r][big]),
            "mean_share_ppi_python_clears_margin": _median(cleared, np.mean)}  # fmt: skip
    for i in np.flatnonzero(fail):
        row = {"cell": cells["labels"][i], "rule_over_ppi_python": round(float(ratio[i]), 4),
               "ppi_python_coverage": round(float(cells["coverage"][i]), 4),
               "dominant": REASONS[dominant[i]],
               "share": {n: round(float(reps_r / reps[i]), 4) for n, reps_r in
                         zip(REASONS, cells["reps"][:, i], strict=True)}}  # fmt: skip
        if neighbourhood is not None and REASONS[dominant[i]] in ("banned", "below_threshold"):
            row["neighbourhood"] = neighbourhood(i)
            near.append(row["neighbourhood"]["ppi_python_min_coverage"])
        out["failing_cells"].append(row)
    out["ineligible_cells_ppi_python_min_coverage_nearby"] = {"median": _median(near),
        "share_below_0.945": _median(np.array(near) < cover, np.mean)}  # fmt: skip
    return out


def _median(values, how=np.median):
    """``how`` of the finite values, rounded; None where there are none."""
    values = np.asarray(values, dtype=float)[np.isfinite(np.asarray(values, dtype=float))]
    return round(float(how(values)), 4) if values.size else None


def neighbours(target, table):
    """flat cell index -> ppi-python's and ppi_pp's min coverage and ppi_pp's bans around it."""
    path = Path(__file__).resolve().parent / "results" / "random_design.json"
    py = np.asarray(json.loads(path.read_text())["cells"][target]["ppi_python"]["coverage"])
    at = (list(table["targets"]).index(target), list(table["methods"]).index("ppi_pp"), ...)
    own, banned = table["coverage"][at], table["banned"][at]

    def around(flat):
        a, b, *idx = np.unravel_index(flat, py.shape)
        box = (a, b, *(slice(max(i - 1, 0), i + 2) for i in idx))
        return {"ppi_python_min_coverage": round(float(np.nanmin(py[box])), 4),
                "ppi_pp_min_table_coverage": round(float(np.nanmin(own[box])), 4),
                "ppi_pp_banned_cells": int(banned[box].sum())}  # fmt: skip

    return around


def real_cell(task):
    """One real-data (label, z, z_hat, M, splits, seed, table, free) cell, per target."""
    import judgestats
    from judgestats.recommendation.random_rule import CHOICES
    from judgestats.recommendation.side_by_side import _sampling_fails

    label, z, z_hat, size, splits, seed, table, free = task
    data = [judgestats.JudgeData(**real_data.counts(z, z_hat, real_data.labelled_mask(
        z.size, size, s, seed)), design="random") for s in range(splits)]  # fmt: skip
    fails = np.array([_sampling_fails(d) is not None for d in data])
    counts = tuple(np.array([getattr(d, k) for d in data], dtype=np.int64)
                   for k in ("k", "n", "k0", "m0", "k1", "m1"))  # fmt: skip
    truth, out = np.full(splits, float(z.mean())), []
    for target in TARGETS:
        lows, highs = np.zeros(splits), np.zeros(splits)
        for s in np.flatnonzero(fails):
            lows[s], highs[s] = real_data.crosscheck_pick(data[s], target, seed + s)[2:]
        got, sums, (choice, low, high) = analyse(counts, truth, size, z.size - size, target,
                                                 table, free, (fails, lows, highs))  # fmt: skip
        verify = np.flatnonzero(~fails)[: real_data.VERIFY]  # against the picks crosscheck makes
        picks = [real_data.rule_pick(data[s], target) for s in verify]
        bad = [p[0] != CHOICES[choice[s]] or abs(p[2] - low[s]) + abs(p[3] - high[s]) > 1e-9
               for s, p in zip(verify, picks, strict=True)]  # fmt: skip
        out.append((got, sums, {"checked": len(bad), "mismatched": int(sum(bad)),
                                "sampling_fails": int(fails.sum())}))  # fmt: skip
    return label, out


def real_pass(splits, workers, table, free):
    """Every real-data (dataset, judge, M) cell, as grid_pass's dict per target, plus checks."""
    tasks = [([dataset, judge, size], z, z_hat, size, splits, real_data.RANDOM_SEED, table, free)
             for dataset in real_data.DATASETS
             for judge, (z, z_hat) in real_data.load_dataset(dataset).items()
             for size in real_data.SIZES]  # fmt: skip
    results = _map(real_cell, tasks, workers)
    out, checks = {}, {}
    for t, target in enumerate(TARGETS):
        got, sums, check = zip(*(cell[t] for _, cell in results), strict=True)
        out[target] = {"coverage": np.array([g["ppi_python"][0] for g in got]),
                       "ppi_width": np.array([g["ppi_python"][1] for g in got]),
                       "rule_width": np.array([g["rule"][1] for g in got]),
                       "rule_coverage": np.array([g["rule"][0] for g in got]),
                       "labels": [label for label, _ in results]}  # fmt: skip
        out[target] |= {k: np.stack([s[k] for s in sums], axis=1) for k in SUMS}
        checks[target] = {k: sum(c[k] for c in check) for k in check[0]}
    return out, checks


COLUMNS = (
    ("failing cells it dominates", "by_dominant_reason", "cells"),
    ("median rule / ppi-python there", "by_dominant_reason", "median_rule_over_ppi_python"),
    ("mean share of reps", "per_reason", "mean_share"),
    ("median rule / ppi-python on its reps", "per_reason", "median_rule_over_ppi_python"),
    ("median ppi_pp / ppi-python on its reps", "per_reason", "median_ppi_pp_over_ppi_python"),
    ("its reps where ppi-python is 5% under Blaker", "per_reason", "mean_share_ppi_python_"
     "clears_margin"))  # fmt: skip


def _table_lines(title, summary):
    """Markdown rows: per target the counts, then per reason the COLUMNS."""
    keys = (
        "cells",
        "ppi_python_covers",
        "within_5pct",
        "failing",
        "rule_below_0.945",
        "rule_below_by_2se",
        "rule_min_coverage",
    )
    lines = [
        f"## {title}",
        "",
        "| target | " + " | ".join(keys) + " |",
        "|---" * (1 + len(keys)) + "|",
    ]
    lines += [f"| {t} | " + " | ".join(str(s[k]) for k in keys) + " |" for t, s in summary.items()]
    lines += ["", "| target | reason | " + " | ".join(c[0] for c in COLUMNS) + " |",
              "|---" * (2 + len(COLUMNS)) + "|"]  # fmt: skip
    for target, s in summary.items():
        lines += [f"| {target} | {name} | " + " | ".join(str(s[part][name][key]) for _, part, key
                  in COLUMNS) + " |" for name in REASONS]  # fmt: skip
    near = {t: s["ineligible_cells_ppi_python_min_coverage_nearby"] for t, s in summary.items()}
    return [*lines, "", f"Cells failing through ineligibility, ppi-python's lowest coverage in "
            f"the neighbourhood: {near}" if near["population"]["median"] else "", ""]  # fmt: skip


def markdown(result):
    """The results page."""
    variant = result.get("variant", "shipped")
    lines = ["# Within 5% of ppi-python: why not, cell by cell (issue 24)" +
             ("" if variant == "shipped" else f", variant `{variant}`"), "",
             f"`{result['command']}`: {result['seconds']:.0f} s wall, {result['workers']} "
             f"processes; {result['reps']} replications a grid cell (seed {result['seed']}), "
             f"real data {result['splits']} splits a cell.", "",
             __doc__.split("\n\n")[1].replace("\n", " "), "",
             "Ratios: medians over the failing cells; a reason's own ratios over the failing "
             "cells where it holds >= 1% of the replications. Grid failing cells (with the "
             "neighbourhood where ineligibility dominates): within5_breakdown.json, "
             "`grid.<target>.failing_cells`.", ""]  # fmt: skip
    lines += _table_lines("Simulation grid (benchmarks/random_design.py's)", result["grid"])
    lines += _table_lines("Real data (benchmarks/real_data.py's cells)", result["real"])
    shipped = result.get("variant", "shipped") == "shipped"
    lines += ["Real-data picks checked against real_data.rule_pick (crosscheck, the shipped "
              "table" + ("" if shipped else ": this variant differs from it by design") + "): " +
              json.dumps(result["real_check"]), "", "## Failing real-data cells", "",
              "| target | dataset | judge | M | rule / ppi-python | dominant | shares |",
              "|---" * 7 + "|"]  # fmt: skip
    lines += [f"| {t} | {' | '.join(map(str, row['cell']))} | {row['rule_over_ppi_python']:.3f}"
              f" | {row['dominant']} | " + ", ".join(f"{k} {v:.2f}" for k, v in
              row["share"].items() if v) + " |" for t, s in result["real"].items()
              for row in s["failing_cells"]]  # fmt: skip
    return "\n".join([*lines, ""])


def main(argv=None):
    """Run both passes and write the results."""
    from judgestats.recommendation.random_rule import random_coverage_table

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name, default in dict(reps=2000, splits=real_data.SPLITS, seed=5, workers=2).items():
        parser.add_argument(f"--{name}", type=int, default=default)
    parser.add_argument("--variant", choices=VARIANTS, default="shipped")
    args, start, table = parser.parse_args(argv), time.perf_counter(), random_coverage_table()
    free = dict(table, banned=np.zeros_like(table["banned"]))  # the table without its bans
    if args.variant == "no_raises":  # every level at the lowest step, nothing banned
        table = free = dict(free, steps=np.zeros_like(table["steps"]))
    grid = grid_pass(args.reps, args.seed, args.workers, table, free)
    real, checks = real_pass(args.splits, args.workers, table, free)
    command = " ".join(["python benchmarks/within5_breakdown.py", *(argv or sys.argv[1:])])
    result = {"command": command,
              "reps": args.reps, "splits": args.splits, "seed": args.seed, "workers": args.workers,
              "variant": args.variant,
              "grid": {t: summarise(grid[t], args.reps, neighbours(t, table)) for t in TARGETS},
              "real": {t: summarise(real[t], args.splits) for t in TARGETS},
              "real_check": checks}  # fmt: skip
    result["seconds"] = time.perf_counter() - start
    name = "within5_breakdown" + ("" if args.variant == "shipped" else f"_{args.variant}")
    write_results(name, result)
    (RESULTS / f"{name}.md").write_text(markdown(result))


if __name__ == "__main__":
    main()
