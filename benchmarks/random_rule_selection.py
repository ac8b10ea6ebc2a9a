"""Why the random-design rule reads its regime at 99% and offers one PPI++ (issue 24).

Two measurements on the shipped table (src/judgestats/datasets/random_coverage_table.npz),
through the rule's own function (``judgestats.recommendation.random_rule.choose_random``):

1. one lopsided cell (population target, m = 100, n = 10,000, q0 = 0.99, q1 = 0.7, theta =
   0.3), 20,000 replications: the share of each pick and the coverage among the samples it was
   picked for, with the regime read at 95% and at 99% (``REGIME_LEVEL``);
2. the whole grid (4,200 cells a target, ``--reps`` a cell): cells whose recommended interval
   covers less than 0.95 - 2 SE, with PPI++ alone as the approximate candidate (the rule) and
   with PPI++ without its small-sample correction offered too.

The table's bans were tuned for the shipped rule, so the variants are measured against them:
this shows the direction of each choice, not what a table tuned for the variant would give.

Run: ``python benchmarks/random_rule_selection.py [--reps 4000]`` (about 4 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import random_design as rd  # noqa: E402
from _env import RESULTS, markdown_head, write_results  # noqa: E402

CELL = (100, 10_000, 0.99, 0.7, 0.3)  # m, n, q0, q1, theta


def cell_picks(reps, seed):
    """Per regime level: {choice: (share, coverage among its picks)} and the rule's coverage."""
    import judgestats.recommendation.random_rule as rule

    m, n, q0, q1, theta = CELL
    out = {}
    shipped = rule.REGIME_LEVEL
    try:
        for level in (0.95, 0.99):
            rule.REGIME_LEVEL = level
            counts, truth = rd.simulate(
                m, n, reps, np.random.default_rng(seed), ([q0], [q1], [theta])
            )
            choice, low, high, _ = rd._recommended(
                counts, m, n, "population", rule.random_coverage_table()
            )
            covered = (low <= truth["population"] + 1e-12) & (truth["population"] <= high + 1e-12)
            picks = {
                name: [
                    round(float((choice == j).mean()), 4),
                    round(float(covered[choice == j].mean()), 4),
                ]
                for j, name in enumerate(rule.CHOICES)
                if (choice == j).any()
            }
            out[str(level)] = {"coverage": round(float(covered.mean()), 4), "picks": picks}
    finally:
        rule.REGIME_LEVEL = shipped
    return out


def grid_below(reps, seed, workers):
    """Cells below 0.95 - 2 SE per target: PPI++ alone, and with the uncorrected PPI++ offered."""
    import judgestats.recommendation.random_rule as rule

    shipped = rule.APPROXIMATE, rule.CHOICES
    se = np.sqrt(0.95 * 0.05 / reps)
    out = {}
    try:
        for label, approximate in (
            ("ppi_pp", shipped[0]),
            ("ppi_pp and ppi_pp_wald", ("ppi_pp", "ppi_pp_wald", *shipped[0][1:])),
        ):
            rule.APPROXIMATE = approximate
            rule.CHOICES = (*approximate, *rule.EXACT_CANDIDATES, rule.WIDEST_EXACT)
            res = rd.rule_pass(rule.random_coverage_table(), reps, (seed, 7), workers)
            out[label] = {
                target: int((res["coverage"][t] < 0.95 - 2 * se).sum())
                for t, target in enumerate(rd.TARGETS)
            }
    finally:
        rule.APPROXIMATE, rule.CHOICES = shipped
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4000, help="replications a grid cell")
    parser.add_argument("--cell-reps", type=int, default=20000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    summary = {
        "cell_m_n_q0_q1_theta": list(CELL),
        "cell_by_regime_level": cell_picks(args.cell_reps, args.seed),
        "grid_cells_below_0.95_minus_2se": grid_below(args.reps, args.seed, args.workers),
        "reps": args.reps,
        "seconds": round(time.perf_counter() - start, 1),
    }
    command = f"python benchmarks/random_rule_selection.py --reps {args.reps}"
    write_results("random_rule_selection", {"command": command, "summary": summary})
    title = "Random-design rule: the regime level and the second PPI++ "
    title += "(benchmarks/random_rule_selection.py)"
    (RESULTS / "random_rule_selection.md").write_text(
        "\n".join(markdown_head(title, command, summary))
    )
    print("\n".join(markdown_head(title, command, summary)))


if __name__ == "__main__":
    main()
