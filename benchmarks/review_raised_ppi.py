"""Independent review: does the random rule, PPI++ at its calibrated level, cover 95% where hard?

Own simulator (nothing from ``benchmarks/``): N = n + m items, each correct with probability
theta; m of them labelled at random, so m1 ~ Bin(m, theta), m0 = m - m1, k1 ~ Bin(m1, q1) judged
correct among the labelled correct, k0 ~ Bin(m0, q0) judged incorrect among the labelled
incorrect; the unlabelled T_u ~ Bin(n, theta) correct, k = Bin(T_u, q1) + Bin(n - T_u, 1 - q0)
judged correct. Truth: theta (``population``) or (m1 + T_u) / N (``items``).

Each dataset goes through the public path (``_sampling_fails``, ``count_candidates``,
``recommend_random``); datasets where the class-balance test rejects are skipped and counted.
Intervals are cached per distinct count tuple. Cells are chosen from the coverage table's
``steps`` (largest PPI++ steps, their lowest-step neighbours, strong judges at the lowest step,
where PPI++ is computed below 95%, strong judges, extreme theta) plus four off-grid cells; a
cell whose coverage is below 0.945 is rerun with fresh replications.

Run (two processes sharing the cells, then merge)::

    nice python benchmarks/review_raised_ppi.py --shard 0 --shards 2
    nice python benchmarks/review_raised_ppi.py --shard 1 --shards 2
    python benchmarks/review_raised_ppi.py --merge
"""

from __future__ import annotations

import argparse
import json
import math
import re
import time
import warnings
from pathlib import Path

import numpy as np

from judgestats.recommendation.random_rule import LEVEL_STEPS, NOMINAL_STEP

RESULTS = Path(__file__).resolve().parent / "results"
OUT = RESULTS / "review_raised_ppi.json"
TOL = 1e-12
FLOOR = 0.945


def simulate(rng, reps, m, n, q0, q1, theta):
    """(counts (reps, 6): k, n, k0, m0, k1, m1; T_u (reps,))."""
    m1 = rng.binomial(m, theta, reps)
    m0 = m - m1
    k1 = rng.binomial(m1, q1)
    k0 = rng.binomial(m0, q0)
    t_u = rng.binomial(n, theta, reps)
    k = rng.binomial(t_u, q1) + rng.binomial(n - t_u, 1.0 - q0)
    counts = np.column_stack([k, np.full(reps, n), k0, m0, k1, m1]).astype(np.int64)
    return counts, t_u


class Rule:
    """The public path, cached per (target, counts)."""

    def __init__(self):
        from judgestats import JudgeData
        from judgestats.designs.prediction_powered import ppi_pp_counts
        from judgestats.designs.random_candidates import count_candidates
        from judgestats.recommendation.random_rule import recommend_random
        from judgestats.recommendation.side_by_side import _sampling_fails

        self.JudgeData, self.ppi = JudgeData, ppi_pp_counts
        self.count_candidates, self.recommend = count_candidates, recommend_random
        self.fails = _sampling_fails
        self.cache = {}
        self.odd = {}

    def _flag(self, what, counts, target, detail):
        entry = self.odd.setdefault(what, {"count": 0, "examples": []})
        entry["count"] += 1
        if len(entry["examples"]) < 3:
            entry["examples"].append({"counts": list(counts), "target": target, **detail})

    def __call__(self, counts, target):
        """(low, high, method, level PPI++ is computed at) or None where the sampling test
        rejects (level 0.95 for every other pick)."""
        key = (target, *counts)
        if key in self.cache:
            return self.cache[key]
        k, n, k0, m0, k1, m1 = (int(c) for c in counts)
        data = self.JudgeData(k=k, n=n, k0=k0, m0=m0, k1=k1, m1=m1, design="random")
        if self.fails(data) is not None:
            self.cache[key] = None
            return None
        cands = self.count_candidates(k, n, k0, m0, k1, m1, target=target, level=0.95)
        rec = self.recommend(data, 0.95, cands, target=target)
        low, high = float(rec.low), float(rec.high)
        level = self._check(rec, cands, (k, n, k0, m0, k1, m1), target)
        out = (low, high, rec.method, level)
        self.cache[key] = out
        return out

    def _check(self, rec, cands, counts, target):
        """Look for a recommendation whose interval contradicts its reason or the rule; return
        the level its reason states PPI++ is computed at (0.95 where it states none)."""
        low, high = rec.low, rec.high
        blaker = cands["labels_only_blaker"]
        detail = {"method": rec.method, "low": low, "high": high}
        if not (low - TOL <= rec.estimate <= high + TOL):
            self._flag("estimate outside interval", counts, target, detail)
        if high - low > (blaker[2] - blaker[1]) + 1e-9 and rec.method != "labels_only_bounds":
            self._flag("wider than Blaker", counts, target, detail)
        if rec.method == "labels_only_blaker" and (
            abs(low - blaker[1]) > 1e-9 or abs(high - blaker[2]) > 1e-9
        ):
            self._flag("Blaker pick differs from Blaker candidate", counts, target, detail)
        if rec.method != "ppi_pp":
            return 0.95
        ppi95 = cands["ppi_pp"]
        same95 = abs(low - ppi95[1]) < 1e-9 and abs(high - ppi95[2]) < 1e-9
        found = re.search(r"computed at the (\d+(?:\.\d+)?)% level", rec.reason)
        if found is None:
            if not same95:
                self._flag("PPI++ pick without a level differs from 95% PPI++", counts, target,
                           detail)  # fmt: skip
            return 0.95
        level = float(found.group(1)) / 100
        _, lo_l, hi_l, _ = self.ppi(*counts, target=target, confidence_level=level)
        detail = {**detail, "stated_level": level, "ppi_at_stated": [float(lo_l), float(hi_l)]}
        at_stated = abs(low - float(lo_l)) < 1e-9 and abs(high - float(hi_l)) < 1e-9
        if not at_stated:
            self._flag("PPI++ pick is not PPI++ at the stated level", counts, target, detail)
        width, width95 = high - low, ppi95[2] - ppi95[1]
        if level > 0.95 and (same95 or width <= width95 + 1e-12):
            self._flag("raised interval not wider than 95% PPI++", counts, target, detail)
        if level < 0.95 and width > width95 + 1e-12:
            self._flag("lowered interval wider than 95% PPI++", counts, target, detail)
        if level == 0.95:
            self._flag("reason states a level of 95%", counts, target, detail)
        if rec.coverage is not None and not math.isnan(rec.coverage) and rec.coverage < 0:
            self._flag("negative coverage", counts, target, detail)
        return level


def run_cell(rule, cell, reps, seed):
    """Coverage, width and pick shares of the rule's interval over ``reps`` datasets."""
    rng = np.random.default_rng(seed)
    m, n, q0, q1, theta, target = (cell[x] for x in ("m", "n", "q0", "q1", "theta", "target"))
    counts, t_u = simulate(rng, reps, m, n, q0, q1, theta)
    uniq, inverse = np.unique(counts, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    low, high = np.full(len(uniq), np.nan), np.full(len(uniq), np.nan)
    method = np.empty(len(uniq), dtype=object)
    level = np.full(len(uniq), 0.95)
    for u, row in enumerate(uniq):
        got = rule(tuple(int(c) for c in row), target)
        if got is not None:
            low[u], high[u], method[u], level[u] = got
    keep = ~np.isnan(low[inverse])
    skipped = int((~keep).sum())
    lo, hi = low[inverse][keep], high[inverse][keep]
    if target == "population":
        truth = np.full(lo.size, theta)
    else:
        truth = (counts[keep, 5] + t_u[keep]) / (m + n)
    covered = (lo - TOL <= truth) & (truth <= hi + TOL)
    used = int(keep.sum())
    cov = float(covered.mean())
    methods = method[inverse][keep]
    names, tallies = np.unique(methods.astype(str), return_counts=True)
    share = {str(a): int(b) / used for a, b in zip(names, tallies, strict=True)}
    ppi = methods == "ppi_pp"
    rz = level[inverse][keep] > 0.95
    lz = level[inverse][keep] < 0.95
    out = {
        "reps": reps,
        "seed": seed,
        "used": used,
        "skipped_sampling_fails": skipped,
        "distinct_tuples": len(uniq),
        "coverage": cov,
        "se": math.sqrt(cov * (1 - cov) / used),
        "mean_width": float((hi - lo).mean()),
        "share": share,
        "share_ppi_pp": float(ppi.mean()),
        "share_raised_among_ppi": float(rz[ppi].mean()) if ppi.any() else 0.0,
        "share_lowered_among_ppi": float(lz[ppi].mean()) if ppi.any() else 0.0,
        "share_blaker": share.get("labels_only_blaker", 0.0),
    }
    if ppi.any():
        out["coverage_ppi_picks"] = float(covered[ppi].mean())
        if rz.any():
            out["coverage_raised_picks"] = float(covered[rz].mean())
        if lz.any():
            out["coverage_lowered_picks"] = float(covered[lz].mean())
        if (ppi & ~rz & ~lz).any():
            out["coverage_95_ppi_picks"] = float(covered[ppi & ~rz & ~lz].mean())
    return out


def select_cells(table, target, offgrid=4):
    """~12 hard grid cells for ``target`` plus ``offgrid`` off-grid variants."""
    t = list(table["targets"]).index(target)
    j = list(table["methods"]).index("ppi_pp")
    banned = table["banned"][t, j]
    steps = table["steps"][t, j] if "steps" in table else np.full(banned.shape, NOMINAL_STEP)
    cov = table["coverage"][t, j]
    g = {a: table[a] for a in ("m", "n", "q", "theta")}
    chosen, seen = [], set()

    def add(idx, kind):
        if idx in seen:
            return False
        seen.add(idx)
        a, b, c, d, e = idx
        chosen.append({"target": target, "m": int(g["m"][a]), "n": int(g["n"][b]),
                       "q0": float(g["q"][c]), "q1": float(g["q"][d]),
                       "theta": float(g["theta"][e]), "kind": kind})  # fmt: skip
        return True

    order = sorted(
        zip(*np.nonzero(~banned), strict=True),
        key=lambda i: (-int(steps[i]), float(np.nan_to_num(cov[i], nan=1.0))),
    )
    order = [tuple(int(x) for x in i) for i in order]
    top = _largest_steps(order, steps, add)
    _step0_neighbours(top, steps, banned, add)
    _lowest_step_strong(order, steps, g, add)
    _strong_and_extreme(order, g, add)
    return chosen + _off_grid(chosen, offgrid)


def _largest_steps(order, steps, add):
    """Up to 4 cells with the largest steps, one per (m, q0, q1, theta)."""
    top, shapes = [], set()
    for i in order:
        if steps[i] == 0 or len(top) == 4:
            break
        if (i[0], *i[2:]) in shapes:
            continue
        shapes.add((i[0], *i[2:]))
        if add(i, "largest step"):
            top.append(i)
    return top


def _step0_neighbours(top, steps, banned, add):
    """Up to 3 lowest-step neighbours of ``top``, one grid step away in q0, q1 or theta."""
    count = 0
    for i in top:
        for axis in (2, 3, 4):
            for d in (-1, 1):
                nb = list(i)
                nb[axis] += d
                nb = tuple(nb)
                if not 0 <= nb[axis] < steps.shape[axis] or count == 3:
                    continue
                if steps[nb] == 0 and not banned[nb] and add(nb, "lowest-step neighbour"):
                    count += 1
                    break
            else:
                continue
            break


def _lowest_step_strong(order, steps, g, add):
    """Up to 4 lowest-step cells (PPI++ below 95%) of strong judges (q0, q1 >= 0.9), one per m
    of 50-500, lowest table coverage first."""
    ms = set()
    for i in reversed(order):  # order: largest step first, then lowest coverage
        if steps[i] != 0 or len(ms) == 4 or g["m"][i[0]] < 50 or i[0] in ms:
            continue
        if g["q"][i[2]] >= 0.9 and g["q"][i[3]] >= 0.9 and add(i, "lowest step, strong judge"):
            ms.add(i[0])


def _strong_and_extreme(order, g, add):
    """Strong judges (q0, q1 >= 0.9), one per m in 20/50/100, hardest first; extreme theta."""
    strong = [
        i
        for i in order
        if g["m"][i[0]] in (20, 50, 100) and g["q"][i[2]] >= 0.9 and g["q"][i[3]] >= 0.9
    ]
    count, ms = 0, set()
    for i in strong:
        if count == 3 or i[0] in ms:
            continue
        if add(i, "strong judge"):
            ms.add(i[0])
            count += 1
    for edge in (0, len(g["theta"]) - 1):  # extreme theta, strong judge, m 50-100
        for i in order:
            if i[4] == edge and g["m"][i[0]] in (50, 100) and g["q"][i[2]] >= 0.9:
                if g["q"][i[3]] >= 0.9 and add(i, f"theta {g['theta'][edge]}"):
                    break


def _off_grid(chosen, offgrid):
    """Off-grid variants of chosen cells (users' data are not on the grid): m 35/75/150, n 3000."""
    off = []
    moves = (("m", 50, 75), ("n", 1000, 3000), ("m", 20, 35), ("m", 100, 150))
    for axis, was, new in moves[:offgrid]:
        for c in chosen:
            if c[axis] == was and not c["kind"].startswith("theta"):
                off.append(dict(c, **{axis: new}, kind=f"off-grid {axis} ({c['kind']})"))
                break
    return off


def table_step(table, cell):
    """Step and banned of ppi_pp at the cell (grid) or the max over its regime's grid cells."""
    t = list(table["targets"]).index(cell["target"])
    j = list(table["methods"]).index("ppi_pp")
    a = int(np.searchsorted(table["m"], cell["m"], side="right") - 1)
    ns = table["n"]
    if cell["n"] in ns:
        b = [int(np.flatnonzero(ns == cell["n"])[0])]
    else:
        hi = int(np.searchsorted(ns, cell["n"]))
        b = [hi - 1, hi]
    c = int(np.flatnonzero(np.isclose(table["q"], cell["q0"]))[0])
    d = int(np.flatnonzero(np.isclose(table["q"], cell["q1"]))[0])
    e = int(np.flatnonzero(np.isclose(table["theta"], cell["theta"]))[0])
    steps = table["steps"] if "steps" in table else np.full(table["banned"].shape, NOMINAL_STEP)
    s = max(int(steps[t, j, a, bb, c, d, e]) for bb in b)
    ban = any(bool(table["banned"][t, j, a, bb, c, d, e]) for bb in b)
    cov = min(float(table["coverage"][t, j, a, bb, c, d, e]) for bb in b)
    return s, ban, cov


def main():
    """Run a shard of the cells (both targets), or merge the shards' results."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--shard", type=int, default=0, help="this process's shard (0-based)")
    p.add_argument("--shards", type=int, default=1, help="processes sharing the cells")
    p.add_argument("--reps", type=int, default=10_000)
    p.add_argument("--fresh-reps", type=int, default=40_000)
    p.add_argument("--seed", type=int, default=20261127)
    p.add_argument("--max-cells", type=int, default=None, help="per target")
    p.add_argument("--merge", action="store_true")
    args = p.parse_args()
    RESULTS.mkdir(exist_ok=True)
    if args.merge:
        merge()
        return
    warnings.simplefilter("ignore")
    from judgestats.recommendation.random_rule import random_coverage_table

    table = random_coverage_table()
    cells = []
    for tix, target in enumerate(("population", "items")):
        for i, cell in enumerate(select_cells(table, target)[: args.max_cells]):
            # each target's cells alternate between the shards; seeds fixed per cell
            if i % args.shards == args.shard:
                cells.append((tix, i, cell))
    cells.sort(key=lambda x: (x[1], x[0]))  # the targets interleaved: partial runs cover both
    rule = Rule()
    results = []
    part = RESULTS / f"review_raised_ppi_part{args.shard}.json"
    for tix, i, cell in cells:
        start = time.time()
        step, ban, tcov = table_step(table, cell)
        row = dict(cell, table_step=step, table_banned=ban, table_ppi_coverage=tcov)
        row["first"] = run_cell(rule, cell, args.reps, [args.seed, tix, i, 0])
        final = row["first"]
        if final["coverage"] < FLOOR and args.fresh_reps > 0:
            row["fresh"] = run_cell(rule, cell, args.fresh_reps, [args.seed, tix, i, 1])
            final = row["fresh"]
        row["final"] = final
        row["flag"] = final["coverage"] < FLOOR - 2 * final["se"]
        row["seconds"] = round(time.time() - start, 1)
        results.append(row)
        print(
            f"{cell['target']} m={cell['m']} n={cell['n']} q0={cell['q0']} q1={cell['q1']} "
            f"theta={cell['theta']} step={step} cov={final['coverage']:.4f} "
            f"({final['se']:.4f}, R={final['used']}) ppi={final['share_ppi_pp']:.3f} "
            f"raised={final['share_raised_among_ppi']:.3f} "
            f"lowered={final['share_lowered_among_ppi']:.3f} {row['seconds']}s",
            flush=True,
        )
        summary = {"args": vars(args), "cells": results, "oddities": rule.odd}
        part.write_text(json.dumps(summary, indent=1))  # after every cell: partial results


def merge():
    """Combine the shards' files into ``review_raised_ppi.json`` and print the table."""
    parts = sorted(RESULTS.glob("review_raised_ppi_part*.json"))
    loaded = [json.loads(p.read_text()) for p in parts]
    order = {"population": 0, "items": 1}
    out = {
        "floor": FLOOR,
        "runs": [x["args"] for x in loaded],
        "cells": sorted(
            (c for x in loaded for c in x["cells"]),
            key=lambda c: (order[c["target"]], "off-grid" in c["kind"], -c["table_step"]),
        ),
        "oddities": [x["oddities"] for x in loaded],
    }
    OUT.write_text(json.dumps(out, indent=1))
    print("| target | m | n | q0 | q1 | theta | PPI++ level (B: banned) | coverage (SE) | R | "
          "width | PPI++ | raised | lowered | Blaker | flag |")  # fmt: skip
    print("|" + "---|" * 15)
    for c in out["cells"]:
        f = c["final"]
        print(
            f"| {c['target']} | {c['m']} | {c['n']} | {c['q0']} | {c['q1']} | {c['theta']} | "
            f"{LEVEL_STEPS[c['table_step']]:.0%}{' B' if c['table_banned'] else ''} | "
            f"{f['coverage']:.4f} "
            f"({f['se']:.4f}) | {f['used']} | {f['mean_width']:.4f} | "
            f"{f['share_ppi_pp']:.3f} | {f['share_raised_among_ppi']:.3f} | "
            f"{f.get('share_lowered_among_ppi', 0.0):.3f} | "
            f"{f['share_blaker']:.3f} | {'LOW' if c['flag'] else ''} |"
        )


if __name__ == "__main__":
    main()
