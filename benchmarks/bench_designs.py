"""Head-to-head under the random calibration design: coverage and width of four 95% intervals.

Issue 7, item 5. The labelled items are a random subsample of ``m`` items; the test set has
n = 1000 *unlabelled* items (``judgestats.simulate.simulate_counts(design="random")``):

    k ~ Bin(n, p),  p = theta q1 + (1 - theta)(1 - q0)              (Lee et al. (ICML 2026) eq. 9)
    m1 ~ Bin(m, theta_cal),  m0 = m - m1,  k0 ~ Bin(m0, q0),  k1 ~ Bin(m1, q1)

Intervals (all at ``--level``, default 0.95):

``lang_reiczigel``
    Rogan-Gladen + Lang-Reiczigel (Lee et al. v1 eqs. 3-7) from p-hat = k/n, q0-hat, q1-hat.
``ppi``, ``ppi_pp``
    PPI (lambda = 1) and PPI++ (power-tuned lambda in [0, 1]) with their CLT intervals
    (``judgestats.designs.prediction_powered.ppi_counts``; not truncated to [0, 1]).
``posterior``
    Equal-tailed credible interval of the random-design posterior, exact engine: the stratified
    exact posterior under the theta prior Beta(1 + m1, 1 + m0)
    (``judgestats.bayes.priors.random_design_prior``; uniform priors, judge better than
    chance). ``exact_interval`` is called once per distinct labelled class count m1, on the
    distinct datasets only.

Scenarios: m in {30, 100, 300}, (q0, q1) in {(0.7, 0.9), (0.9, 0.9), (0.7, 0.7)}, theta in
{0.1, ..., 0.9}; first without shift (theta_cal = theta), then under a shift of the labelled
class balance: the calibration population's odds of a correct item are the test population's
times each ``--shift-odds`` (default 0.5 and 2; at theta = 0.5 that is theta_cal = 1/3 and 2/3,
inside Lee et al. (ICML 2026) Fig. 7's range 0.25-0.75). The judge's behaviour Pr(Z-hat | Z) is
shared, so Rogan-Gladen stays unbiased (Lee et al. (ICML 2026) Sec. 8) while PPI, PPI++ and the
posterior do not.

Datasets in which a labelled class is empty (m0 = 0 or m1 = 0) cannot be analysed by the
Rogan-Gladen or Bayesian model: they are dropped (counted per scenario in ``dropped``) and every
statistic is computed over the remaining datasets, for all four methods alike. An interval that
does not exist (Lang-Reiczigel when the estimated judge is no better than chance) counts as not
covering, as in ``judgestats.simulate.coverage``; widths are averaged over existing intervals.

The goal (issue 7): an interval with coverage >= 0.945 in every scenario and a mean width no
larger than PPI++'s. The summary lists the scenarios where each method's coverage falls below
0.945 and where the posterior is wider than PPI++. Monte Carlo standard error of a coverage of
0.95 is 0.0022 at 10,000 reps (0.0097 at --quick's 500), so a few strict misses are noise.

Each scenario draws from its own stream, ``SeedSequence(--seed, spawn_key=scenario key)``,
keyed on the scenario's parameters (not its position), so results do not depend on
``--workers`` nor on which scenarios run (``--quick``'s scenarios give the full run's numbers
at the same ``--reps``).

    python benchmarks/bench_designs.py --quick               # 5 scenarios x 500 reps, < 1 min
    python benchmarks/bench_designs.py --workers 64          # 243 scenarios x 10,000 reps

Prints a table and writes benchmarks/results/designs.json (designs_quick.json with --quick).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

N = 1000
M_VALUES = (30, 100, 300)
Q_VALUES = ((0.7, 0.9), (0.9, 0.9), (0.7, 0.7))
THETA_VALUES = tuple(round(0.1 * i, 1) for i in range(1, 10))
SHIFT_ODDS = (0.5, 2.0)
METHODS = ("lang_reiczigel", "ppi", "ppi_pp", "posterior")
GOAL_COVERAGE = 0.945


class Scenario(NamedTuple):
    """One setting of the study; ``shift`` is the calibration/test odds ratio (1 = no shift)."""

    m: int
    q0: float
    q1: float
    theta: float
    shift: float = 1.0

    @property
    def theta_cal(self) -> float:
        """Accuracy of the calibration population: odds(theta_cal) = shift * odds(theta)."""
        odds = self.shift * self.theta / (1.0 - self.theta)
        return odds / (1.0 + odds)

    def key(self) -> tuple[int, ...]:
        """Integer key of the scenario's random stream (its parameters, in thousandths)."""
        return (self.m, *(round(1000 * v) for v in (self.q0, self.q1, self.theta, self.shift)))


def scenarios(*, quick: bool, shift_odds: Iterable[float] = SHIFT_ODDS) -> list[Scenario]:
    """The full grid (no shift, then each shift), or the five scenarios of ``--quick``."""
    if quick:
        return [
            Scenario(30, 0.7, 0.9, 0.5),
            Scenario(100, 0.9, 0.9, 0.1),
            Scenario(300, 0.7, 0.7, 0.7),
            Scenario(100, 0.7, 0.9, 0.5, 0.5),
            Scenario(100, 0.7, 0.9, 0.5, 2.0),
        ]
    return [
        Scenario(m, q0, q1, theta, shift)
        for shift in (1.0, *shift_odds)
        for m in M_VALUES
        for q0, q1 in Q_VALUES
        for theta in THETA_VALUES
    ]


def draw(scenario: Scenario, reps: int, seed: int) -> dict[str, np.ndarray]:
    """Counts of ``reps`` datasets of the random design (judgestats.simulate's process)."""
    from judgestats.simulate import simulate_counts

    stream = np.random.SeedSequence(seed, spawn_key=scenario.key())
    cell_seed = int(stream.generate_state(2, np.uint64).astype(object).dot([1, 2**64]))
    m = scenario.m
    ds = simulate_counts(
        theta=scenario.theta,
        q0=scenario.q0,
        q1=scenario.q1,
        n=N,
        m0=m // 2,
        m1=m - m // 2,
        reps=reps,
        design="random",
        theta_cal=scenario.theta_cal,
        random_seed=cell_seed,
    )
    return {
        "k": ds.k.values,
        "n": np.full(reps, N),
        "k0": ds.k0.values,
        "m0": ds.m0_drawn.values,
        "k1": ds.k1.values,
        "m1": ds.m1_drawn.values,
    }


def posterior_intervals(
    counts: dict[str, np.ndarray], level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Random-design exact ETI: one ``exact_interval`` call per distinct m1, distinct rows only."""
    from judgestats.bayes.exact import exact_interval
    from judgestats.bayes.priors import random_design_prior
    from judgestats.data import JudgeData

    table = np.stack([counts[name] for name in ("k", "n", "k0", "m0", "k1", "m1")], axis=1)
    unique, inverse = np.unique(table, axis=0, return_inverse=True)
    low, high = np.empty(len(unique)), np.empty(len(unique))
    for m1 in np.unique(unique[:, 5]):
        rows = np.flatnonzero(unique[:, 5] == m1)
        m0 = int(unique[rows[0], 3])
        prior = random_design_prior(
            JudgeData(k=0, n=1, k0=0, m0=m0, k1=0, m1=int(m1), design="random")
        )
        low[rows], high[rows] = exact_interval(
            *(unique[rows, j] for j in range(6)), prob=level, kind="eti", prior=prior
        )
    inverse = inverse.ravel()
    return low[inverse], high[inverse]


def intervals(
    counts: dict[str, np.ndarray], level: float
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(low, high) of the four methods for datasets with both labelled classes present."""
    from judgestats.designs.prediction_powered import ppi_counts
    from judgestats.exceptions import JudgeStatsWarning
    from judgestats.frequentist import lang_reiczigel_ci

    k, n, k0, m0, k1, m1 = (counts[name] for name in ("k", "n", "k0", "m0", "k1", "m1"))
    with warnings.catch_warnings():  # estimated judges no better than chance give NaN
        warnings.simplefilter("ignore", JudgeStatsWarning)
        lr = lang_reiczigel_ci(k / n, k0 / m0, k1 / m1, n, m0, m1, confidence_level=level)
    out = {"lang_reiczigel": (np.asarray(lr.low), np.asarray(lr.high))}
    for name, lam in (("ppi", 1.0), ("ppi_pp", None)):
        _, ci, _, _ = ppi_counts(k, n, k0, m0, k1, m1, lam=lam, confidence_level=level)
        out[name] = (np.asarray(ci.low), np.asarray(ci.high))
    out["posterior"] = posterior_intervals(counts, level)
    return out


def run_scenario(scenario: Scenario, reps: int, seed: int, level: float = 0.95) -> dict[str, Any]:
    """Coverage, its MC standard error, mean width and undefined count of each method."""
    start = time.perf_counter()
    counts = draw(scenario, reps, seed)
    keep = (counts["m0"] > 0) & (counts["m1"] > 0)
    counts = {name: value[keep] for name, value in counts.items()}
    used = int(keep.sum())
    out: dict[str, Any] = {
        **scenario._asdict(),
        "theta_cal": scenario.theta_cal,
        "reps": reps,
        "dropped": reps - used,
    }
    for method, (low, high) in intervals(counts, level).items():
        cover = (
            float(np.mean((low <= scenario.theta) & (scenario.theta <= high)))
            if used
            else float("nan")
        )
        defined = ~np.isnan(low)
        out[method] = {
            "coverage": cover,
            "coverage_se": float(np.sqrt(cover * (1.0 - cover) / max(used, 1))),
            "width": float(np.mean(high[defined] - low[defined]))
            if defined.any()
            else float("nan"),
            "undefined": int((~defined).sum()),
        }
    out["seconds"] = time.perf_counter() - start
    return out


def _run_one(job: tuple[Scenario, int, int, float]) -> dict[str, Any]:
    return run_scenario(*job)


def run_all(
    grid: list[Scenario], reps: int, seed: int, level: float, workers: int
) -> list[dict[str, Any]]:
    """Every scenario, in order; in ``workers`` processes when ``workers`` > 1."""
    jobs = [(scenario, reps, seed, level) for scenario in grid]
    if workers <= 1:
        return [_run_one(job) for job in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_run_one, jobs, chunksize=1))


def shortfalls(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Where the goal fails: coverage < 0.945 per method; posterior wider than PPI++."""

    def label(row: dict[str, Any]) -> str:
        return (
            f"m={row['m']} q=({row['q0']},{row['q1']}) theta={row['theta']} shift={row['shift']:g}"
        )

    out: dict[str, Any] = {}
    for shifted in (False, True):
        part = [row for row in rows if (row["shift"] != 1.0) == shifted]
        if not part:
            continue
        summary: dict[str, Any] = {"scenarios": len(part)}
        for method in METHODS:
            below = [label(r) for r in part if not r[method]["coverage"] >= GOAL_COVERAGE]
            summary[method] = {
                "below_0945": below,
                "min_coverage": min(r[method]["coverage"] for r in part),
            }
        summary["posterior_wider_than_ppi_pp"] = [
            f"{label(r)}: {r['posterior']['width']:.4f} > {r['ppi_pp']['width']:.4f}"
            for r in part
            if r["posterior"]["width"] > r["ppi_pp"]["width"]
        ]
        summary["posterior_goal_met"] = sum(
            r["posterior"]["coverage"] >= GOAL_COVERAGE
            and r["posterior"]["width"] <= r["ppi_pp"]["width"]
            for r in part
        )
        out["shift" if shifted else "no_shift"] = summary
    return out


def print_table(rows: list[dict[str, Any]]) -> None:
    """One line per scenario: coverage / mean width of each method."""
    head = (
        f"{'shift':>5} {'m':>4} {'q0':>4} {'q1':>4} {'theta':>5} {'th_cal':>6} {'drop':>5} "
        + " ".join(f"{name:>15}" for name in METHODS)
    )
    print(head)
    print(" " * 41 + " ".join(f"{'cover  width':>15}" for _ in METHODS))
    for r in rows:
        cells = " ".join(f"{r[name]['coverage']:7.3f} {r[name]['width']:7.4f}" for name in METHODS)
        print(
            f"{r['shift']:5g} {r['m']:4d} {r['q0']:4.1f} {r['q1']:4.1f} {r['theta']:5.1f} "
            f"{r['theta_cal']:6.3f} {r['dropped']:5d} {cells}"
        )


def print_summary(summary: dict[str, Any]) -> None:
    """Where each method misses the goal."""
    for part, s in summary.items():
        print(
            f"\n{part}: {s['scenarios']} scenarios; posterior meets the goal (coverage >= "
            f"{GOAL_COVERAGE} and width <= PPI++) in {s['posterior_goal_met']}"
        )
        for method in METHODS:
            below = s[method]["below_0945"]
            print(
                f"  {method:<15} min coverage {s[method]['min_coverage']:.3f}; below "
                f"{GOAL_COVERAGE} in {len(below)}"
                + (
                    f": {'; '.join(below[:6])}" + (" ..." if len(below) > 6 else "")
                    if below
                    else ""
                )
            )
        wider = s["posterior_wider_than_ppi_pp"]
        print(
            f"  posterior wider than PPI++ in {len(wider)}"
            + (f": {'; '.join(wider[:6])}" + (" ..." if len(wider) > 6 else "") if wider else "")
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="5 scenarios x 500 reps (a smoke test, under a minute)"
    )
    parser.add_argument(
        "--reps",
        type=int,
        default=None,
        help="replications per scenario (default 10000; 500 with --quick)",
    )
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--seed", type=int, default=20260507, help="root seed")
    parser.add_argument("--level", type=float, default=0.95, help="interval level")
    parser.add_argument(
        "--shift-odds",
        type=lambda s: tuple(float(v) for v in s.split(",")),
        default=SHIFT_ODDS,
        help="calibration/test odds ratios (default 0.5,2)",
    )
    args = parser.parse_args(argv)
    reps = args.reps or (500 if args.quick else 10_000)
    grid = scenarios(quick=args.quick, shift_odds=args.shift_odds)
    start = time.perf_counter()
    rows = run_all(grid, reps, args.seed, args.level, args.workers)
    wall = time.perf_counter() - start
    print(
        f"random design, n = {N} unlabelled items, {reps} reps per scenario, level "
        f"{args.level}; coverage over datasets with both labelled classes ('drop' = dropped)\n"
    )
    print_table(rows)
    summary = shortfalls(rows)
    print_summary(summary)
    print(f"\n{len(grid)} scenarios in {wall:.1f} s with {args.workers} worker(s)")
    path = write_results(
        "designs_quick" if args.quick else "designs",
        {
            "quick": args.quick,
            "n": N,
            "reps": reps,
            "seed": args.seed,
            "level": args.level,
            "shift_odds": list(args.shift_odds),
            "goal_coverage": GOAL_COVERAGE,
            "methods": list(METHODS),
            "workers": args.workers,
            "wall_seconds": wall,
            "note": "coverage over datasets with both labelled classes present; 'dropped' counts "
            "the others; an undefined interval counts as not covering",
            "scenarios": rows,
            "summary": summary,
        },
    )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
