"""Width and speed of the guaranteed interval against Lang-Reiczigel (issue 12, item 1).

For every cell of a regime grid (n in {200, 1000, 10000}; m0 = m1 in {20, 50, 100, 200}; judges
(q0, q1) in {(0.6, 0.6), (0.7, 0.7), (0.7, 0.9), (0.8, 0.8), (0.9, 0.9), (0.95, 0.95)};
theta in {0.2, 0.5, 0.8}), the exact coverage of the 95% Lang-Reiczigel interval is computed
(``simulate.coverage(exact=True)``) and ``--datasets`` datasets are drawn. On each dataset both
intervals are computed and timed. The summary splits the cells into those where Lang-Reiczigel
covers (exact coverage >= 0.95) and those where it does not, and reports the median and 90th
percentile of the width ratio guaranteed / Lang-Reiczigel, the median guaranteed width where
Lang-Reiczigel undercovers (against 1, the trivial interval), and the time per interval.

    python benchmarks/bench_guaranteed.py [--datasets 10] [--seed 12]

Writes benchmarks/results/guaranteed.json.

``--scaling`` measures instead how the cost grows with the test-set size (issue 25, item 2): one
dataset (theta = 0.4 with k = 0.4 n, arms 140/200 and 180/200) at n = 10^3 ... 10^12, each n in
a fresh process (so its peak memory is its own), ``--repeats`` timings per n; it reports the
median seconds (wall and CPU: on a shared machine the CPU time is the steadier figure), the ratio
to n = 10^3 measured in the same run, and the peak resident memory.

    python benchmarks/bench_guaranteed.py --scaling [--repeats 5]

Writes benchmarks/results/guaranteed_scaling.json (with the load average before and after).

``--arms`` measures how the cost grows with the calibration arms (k = 400 of n = 1000, arms of
m = 200 ... 10^12 with 0.7 m and 0.9 m correct, ``--repeats`` cold calls of ``guaranteed_ci``
per m) and how far each interval lies from the known-judge limit (Clopper-Pearson's interval of
k / n mapped through the judge, the limit as the arms grow).

    python benchmarks/bench_guaranteed.py --arms [--repeats 5]

Writes benchmarks/results/guaranteed_arms.json (with the load average before and after).

``--profile`` says where one interval's time goes (issue 27: <= 50 ms asked): for five typical
datasets, the seconds, the number of p-value evaluations (each a supremum over the nuisance
set) and of tail sums, and the share of the time in the tail sums.

    python benchmarks/bench_guaranteed.py --profile

Writes benchmarks/results/guaranteed_profile.json.

``--speed`` times the public function against the engine before issue 27 (kept in
``tests/reference/guaranteed_before.py``), both in this process, dataset by dataset in turn so
that both see the same load (wall and CPU seconds; on a shared machine the CPU time is the
steadier figure): one dataset per cell of the regime grid above that
``guaranteed_ci`` accepts (a judge better than chance), each timed through ``guaranteed_ci``
with the per-calibration cache emptied first (a cold call, as a user's single interval), and
through the old ``guaranteed_interval``; the new interval must contain the old one (to the 1e-6
to which an end is located: the supremum is refined around two coarse points, not one, so it
can only be larger) and the widening is reported. Then the
vectorised path: ``guaranteed_intervals`` on ``--reps`` datasets of each of a few coverage
settings (n = 1000, 25 labels per arm), against the old engine looping over the distinct
datasets; datasets per second and the ratio old / new.

    python benchmarks/bench_guaranteed.py --speed [--reps 40] [--seed 12]

Writes benchmarks/results/guaranteed_speed.json (with the load average before and after).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import environment, write_results  # noqa: E402

from judgestats import JudgeStatsWarning, lang_reiczigel_ci  # noqa: E402
from judgestats.guaranteed import guaranteed_interval  # noqa: E402
from judgestats.simulate import coverage  # noqa: E402

N = [200, 1000, 10_000]
M = [20, 50, 100, 200]
JUDGES = [(0.6, 0.6), (0.7, 0.7), (0.7, 0.9), (0.8, 0.8), (0.9, 0.9), (0.95, 0.95)]
THETA = [0.2, 0.5, 0.8]


SCALING_N = [10**3, 10**5, 10**7, 10**9, 10**12]
_ONE_N = """
import json, resource, sys, time
from judgestats.guaranteed import guaranteed_interval
n, repeats = int(sys.argv[1]), int(sys.argv[2])
seconds, cpu = [], []
for _ in range(repeats):
    t0, c0 = time.perf_counter(), time.process_time()
    low, high = guaranteed_interval(4 * n // 10, n, 140, 200, 180, 200, 0.95)
    seconds.append(time.perf_counter() - t0)
    cpu.append(time.process_time() - c0)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out = {"seconds": seconds, "cpu_seconds": cpu, "peak_mb": peak, "interval": [low, high]}
print(json.dumps(out))
"""
_BARE = "import resource, judgestats.guaranteed, scipy.special, scipy.optimize; " + (
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
)


def scaling(repeats: int) -> None:
    """Median time and peak memory of one interval against n (each n in its own process)."""
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    bare = float(
        subprocess.run(
            [sys.executable, "-c", _BARE], capture_output=True, text=True, check=True
        ).stdout
    )
    rows = []
    for n in SCALING_N:
        out = subprocess.run(
            [sys.executable, "-c", _ONE_N, str(n), str(repeats)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        row = json.loads(out)
        rows.append(
            {
                "n": n,
                "median_s": float(np.median(row["seconds"])),
                "median_cpu_s": float(np.median(row["cpu_seconds"])),
                **row,
            }
        )
    base = rows[0]["median_s"]
    for row in rows:
        row["ratio_to_n_1e3"] = row["median_s"] / base
        row["peak_mb_above_imports"] = row["peak_mb"] - bare
        print(
            f"n = {row['n']:>14,}  median {row['median_s']:.3f} s (CPU "
            f"{row['median_cpu_s']:.3f} s)  ratio "
            f"{row['ratio_to_n_1e3']:.2f}  peak {row['peak_mb']:.0f} MB "
            f"({row['peak_mb_above_imports']:.0f} MB above imports)  interval "
            f"({row['interval'][0]:.4f}, {row['interval'][1]:.4f})"
        )
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"load average before {' '.join(load_before)}, after {' '.join(load)}")
    write_results(
        "guaranteed_scaling",
        {
            "repeats": repeats,
            "import_peak_mb": bare,
            "loadavg_before": load_before,
            "loadavg_after": load,
            "rows": rows,
        },
    )


ARMS_M = (200, 1_000, 10_000, 10**6, 10**9, 10**12)


def arms(repeats: int) -> None:
    """Time of one interval against the calibration arms' size, and the known-judge limit.

    Dataset k = 400 of n = 1000, arms of m with 0.7 m and 0.9 m correct; ``guaranteed_ci`` with
    the per-calibration cache emptied (a cold call), ``repeats`` times per m (median wall and
    CPU seconds). The limit as m grows: Clopper-Pearson's interval of k / n at level
    1 - alpha + gamma mapped through theta = (pi - 1 + q0) / (q0 + q1 - 1).
    """
    from scipy.stats import beta

    from judgestats import _guaranteed_tails, guaranteed_ci

    load_before = Path("/proc/loadavg").read_text().split()[:3]
    tail = (1 - 0.95 + 0.001) / 2
    limit = [(p - 0.3) / 0.6 for p in (beta.ppf(tail, 400, 601), beta.ppf(1 - tail, 401, 600))]
    rows = []
    for m in ARMS_M:
        counts = (400, 1000, round(0.7 * m), m, round(0.9 * m), m)
        walls, cpus = [], []
        for _ in range(repeats):
            _guaranteed_tails._calibration.cache_clear()
            interval, wall, cpu = _timed(guaranteed_ci, *counts)
            walls.append(wall)
            cpus.append(cpu)
        rows.append(
            {
                "m": m,
                "median_s": float(np.median(walls)),
                "median_cpu_s": float(np.median(cpus)),
                "interval": [float(interval[0]), float(interval[1])],
                "distance_to_limit": max(abs(interval[0] - limit[0]), abs(interval[1] - limit[1])),
            }
        )
        row = rows[-1]
        print(
            f"m = {m:>14,}  median {row['median_s']:.3f} s (CPU {row['median_cpu_s']:.3f} s)  "
            f"interval ({interval[0]:.5f}, {interval[1]:.5f})  "
            f"from the known-judge limit {row['distance_to_limit']:.5f}"
        )
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"known-judge limit ({limit[0]:.5f}, {limit[1]:.5f}); load average before "
          f"{' '.join(load_before)}, after {' '.join(load)}")  # fmt: skip
    write_results(
        "guaranteed_arms",
        {"repeats": repeats, "limit": limit, "loadavg_before": load_before,
         "loadavg_after": load, "rows": rows},
    )  # fmt: skip


PROFILE_CASES = [
    (450, 1000, 16, 20, 18, 20),
    (500, 1000, 45, 50, 44, 50),
    (400, 1000, 140, 200, 180, 200),
    (4 * 10**11, 10**12, 16, 20, 18, 20),
    (4 * 10**11, 10**12, 140, 200, 180, 200),
]


def profile() -> None:
    """Where one interval's time goes: calls of the nuisance supremum and of the tail sums.

    One warm-up, then one profiled run per dataset (the per-calibration cache emptied before
    each run); prints seconds (profiler overhead included), the number of p-value evaluations
    (``sup``), of tail sums over a set of nuisance points (the test count's window summed,
    ``_distinct_tails``, or its Berry-Esseen bound, ``_tail_bound``) and the share of the time
    spent computing tails (``tail`` and ``_coarse_tails``, each call counted once).
    """
    import cProfile
    import pstats

    from judgestats import _guaranteed_tails

    rows = []
    for counts in PROFILE_CASES:
        guaranteed_interval(*counts, 0.95)
        _guaranteed_tails._calibration.cache_clear()
        profiler = cProfile.Profile()
        profiler.enable()
        guaranteed_interval(*counts, 0.95)
        profiler.disable()
        row = _profile_row(counts, pstats.Stats(profiler).stats)  # type: ignore[attr-defined]
        rows.append(row)
        print(
            f"{counts}: {row['seconds']:.3f} s, {row['sup_calls']} p-values (sup), "
            f"{row['tail_calls']} tail sums, {row['tail_share']:.0%} of the time in the tail sums"
        )
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"load average {' '.join(load)}")
    write_results("guaranteed_profile", {"loadavg": load, "rows": rows})


def _profile_row(counts: tuple[int, ...], stats: dict[Any, Any]) -> dict[str, Any]:
    """Seconds, p-value evaluations, tail sums and the tails' share of one profiled interval."""
    by_name = {key[2]: (key, entry) for key, entry in stats.items()}

    def calls(name: str) -> int:
        return by_name[name][1][1] if name in by_name else 0

    def cumulative(name: str) -> float:
        return by_name[name][1][3] if name in by_name else 0.0

    nested = 0.0  # tail called from _coarse_tails is inside the latter's time already
    if "tail" in by_name and "_coarse_tails" in by_name:
        nested = by_name["tail"][1][4].get(by_name["_coarse_tails"][0], (0, 0, 0, 0.0))[3]
    total = sum(entry[2] for entry in stats.values())
    return {
        "counts": counts,
        "seconds": total,
        "sup_calls": calls("sup"),
        "tail_calls": calls("_distinct_tails") + calls("_tail_bound"),
        "tail_share": (cumulative("tail") + cumulative("_coarse_tails") - nested) / total,
    }


def _reference() -> Any:
    """The engine before issue 27 (tests/reference/guaranteed_before.py), as a module."""
    path = Path(__file__).resolve().parents[1] / "tests" / "reference" / "guaranteed_before.py"
    spec = importlib.util.spec_from_file_location("guaranteed_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _grid_datasets(rng: np.random.Generator) -> list[tuple[int, ...]]:
    """One dataset per cell of the regime grid, where guaranteed_ci accepts the judge."""
    out = []
    for n in N:
        for m in M:
            for q0, q1 in JUDGES:
                for theta in THETA:
                    pi = theta * q1 + (1 - theta) * (1 - q0)
                    draws = ((n, pi), (m, q0), (m, q1))
                    k, k0, k1 = (int(rng.binomial(size, p)) for size, p in draws)
                    if k0 / m + k1 / m > 1 and (k0 + 1) / (m + 2) + (k1 + 1) / (m + 2) > 1:
                        out.append((k, n, k0, m, k1, m))
    return out


def _timed(function: Any, *args: Any, **kwargs: Any) -> tuple[Any, float, float]:
    """The result, the wall seconds and the CPU seconds of one call."""
    start, cpu = time.perf_counter(), time.process_time()
    out = function(*args, **kwargs)
    return out, time.perf_counter() - start, time.process_time() - cpu


def _widening(new: Any, old: Any, counts: Any) -> float:
    """How far ``new`` reaches beyond ``old`` (which it must contain, to the root finder's 1e-6)."""
    from judgestats.guaranteed import _THETA_TOL

    if new[0] > old[0] + _THETA_TOL or new[1] < old[1] - _THETA_TOL:
        raise AssertionError(f"{counts}: {tuple(new)} does not contain {tuple(old)}")
    return max(old[0] - new[0], new[1] - old[1], 0.0)


def speed(reps: int, seed: int) -> None:
    """Per-dataset seconds (cold, through guaranteed_ci) and vectorised datasets/s, old vs new."""
    from judgestats import _guaranteed_tails, guaranteed_ci
    from judgestats.guaranteed import guaranteed_intervals

    old = _reference()
    rng = np.random.default_rng(seed)
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    rows = []
    for counts in _grid_datasets(rng):
        _guaranteed_tails._calibration.cache_clear()
        new, new_s, new_cpu = _timed(guaranteed_ci, *counts, confidence_level=0.95)
        before, old_s, old_cpu = _timed(old.guaranteed_interval, *counts, 0.95)
        difference = _widening(new, before, counts)
        rows.append(
            {"counts": counts, "new_s": new_s, "old_s": old_s, "new_cpu_s": new_cpu}
            | {"old_cpu_s": old_cpu, "difference": difference}
        )
    per_dataset: dict[str, Any] = {
        "datasets": len(rows),
        "max_widening": max(r["difference"] for r in rows),
    }
    for clock in ("", "cpu_"):
        new_s, old_s = (np.array([r[f"{v}_{clock}s"] for r in rows]) for v in ("new", "old"))
        per_dataset |= {
            f"new_median_{clock}s": float(np.median(new_s)),
            f"new_p90_{clock}s": float(np.quantile(new_s, 0.9)),
            f"old_median_{clock}s": float(np.median(old_s)),
            f"old_p90_{clock}s": float(np.quantile(old_s, 0.9)),
            f"ratio_of_medians_{clock}".rstrip("_"): float(np.median(old_s) / np.median(new_s)),
            f"ratio_of_totals_{clock}".rstrip("_"): float(old_s.sum() / new_s.sum()),
        }
    print(per_dataset)
    vectorised = _vectorised(old, guaranteed_intervals, reps, rng)
    print(vectorised)
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"load average before {' '.join(load_before)}, after {' '.join(load)}")
    write_results(
        "guaranteed_speed",
        {
            "loadavg_before": load_before,
            "loadavg_after": load,
            "per_dataset": per_dataset,
            "vectorised": vectorised,
            "rows": rows,
        },
    )


#: Coverage settings of the vectorised timing: (theta, q0, q1), n = 1000, 25 labels per arm.
SPEED_SETTINGS = [(0.2, 0.8, 0.8), (0.5, 0.7, 0.9), (0.8, 0.9, 0.9)]


def _vectorised(old: Any, vectorised: Any, reps: int, rng: np.random.Generator) -> dict[str, Any]:
    """Datasets/s of guaranteed_intervals and of the old engine's loop, on the same datasets."""
    from judgestats import _guaranteed_tails

    n, m = 1000, 25
    counts = []
    for theta, q0, q1 in SPEED_SETTINGS:
        pi = theta * q1 + (1 - theta) * (1 - q0)
        counts.append(
            np.stack(
                [rng.binomial(n, pi, reps), np.full(reps, n), rng.binomial(m, q0, reps)]
                + [np.full(reps, m), rng.binomial(m, q1, reps), np.full(reps, m)],
                axis=1,
            )
        )
    data = np.concatenate(counts)
    _guaranteed_tails._calibration.cache_clear()
    (low, high), new_s, new_cpu = _timed(vectorised, *data.T, 0.95)
    unique = np.unique(data, axis=0)
    before, old_s, old_cpu = _timed(
        lambda: {tuple(row): old.guaranteed_interval(*map(int, row), 0.95) for row in unique}
    )
    diff = max(
        _widening((lo, hi), before[tuple(r)], r) for r, lo, hi in zip(data, low, high, strict=True)
    )
    return {
        "datasets": len(data),
        "distinct": len(unique),
        "new_datasets_per_s": len(data) / new_s,
        "old_datasets_per_s": len(data) / old_s,
        "ratio": old_s / new_s,
        "new_datasets_per_cpu_s": len(data) / new_cpu,
        "old_datasets_per_cpu_s": len(data) / old_cpu,
        "ratio_cpu": old_cpu / new_cpu,
        "max_difference": float(diff),
    }


def _dataset_row(rng: np.random.Generator, n: int, m: int, judge: tuple, theta: float) -> dict:
    """One drawn dataset of a cell: both intervals' widths and the guaranteed one's seconds."""
    q0, q1 = judge
    pi = theta * q1 + (1 - theta) * (1 - q0)
    k, k0, k1 = int(rng.binomial(n, pi)), int(rng.binomial(m, q0)), int(rng.binomial(m, q1))
    t0 = time.perf_counter()
    g_low, g_high = guaranteed_interval(k, n, k0, m, k1, m, 0.95)
    seconds = time.perf_counter() - t0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JudgeStatsWarning)
            lr = lang_reiczigel_ci(k / n, k0 / m, k1 / m, n, m, m)
        lr_width = float(lr.high - lr.low)
    except ValueError:  # no correction: the estimated judge is at chance
        lr_width = np.nan
    return {"n": n, "m": m, "q0": q0, "q1": q1, "theta": theta} | {
        "guaranteed_width": g_high - g_low,
        "lr_width": lr_width,
        "seconds": seconds,
    }


def width_study(datasets: int, seed: int) -> list[dict]:
    """Every cell of the regime grid: LR's exact coverage, then ``datasets`` drawn datasets."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in N:
        for m in M:
            for q0, q1 in JUDGES:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", JudgeStatsWarning)
                    exact = coverage(
                        "lang_reiczigel", theta=THETA, q0=q0, q1=q1, n=n, m0=m, m1=m, exact=True
                    )["coverage"].values.ravel()
                for theta, lr_coverage in zip(THETA, exact, strict=True):
                    for _ in range(datasets):
                        row = _dataset_row(rng, n, m, (q0, q1), float(theta))
                        rows.append(row | {"lr_coverage": float(lr_coverage)})
    return rows


def width_summary(rows: list[dict], elapsed: float) -> dict:
    """Width ratios where LR covers, widths where it does not, and the seconds per interval."""
    covers = [r for r in rows if r["lr_coverage"] >= 0.95 and r["lr_width"] > 0]  # NaN: no
    under = [r for r in rows if r["lr_coverage"] < 0.95]
    ratio = np.array([r["guaranteed_width"] / r["lr_width"] for r in covers])
    seconds = np.array([r["seconds"] for r in rows])
    return {
        "environment": environment(),
        "datasets": len(rows),
        "elapsed_s": elapsed,
        "where_lr_covers": {
            "datasets": len(covers),
            "median_width_ratio": float(np.median(ratio)),
            "p90_width_ratio": float(np.quantile(ratio, 0.9)),
            "max_width_ratio": float(ratio.max()),
        },
        "where_lr_undercovers": {
            "datasets": len(under),
            "median_guaranteed_width": float(np.median([r["guaranteed_width"] for r in under])),
            "share_trivial_0_1": float(np.mean([r["guaranteed_width"] >= 1 - 1e-9 for r in under])),
            "median_lr_width": float(np.nanmedian([r["lr_width"] for r in under])),
            "lr_coverage_min": float(min(r["lr_coverage"] for r in under)),
        },
        "seconds_per_interval": {
            "median": float(np.median(seconds)),
            "p90": float(np.quantile(seconds, 0.9)),
            "max": float(seconds.max()),
        },
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=10)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--scaling", action="store_true", help="cost against n only")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="where one interval's time goes")
    parser.add_argument("--speed", action="store_true", help="old vs new, in this process")
    parser.add_argument("--reps", type=int, default=40)
    parser.add_argument("--arms", action="store_true", help="cost against the arms' size")
    args = parser.parse_args()
    if args.arms:
        arms(args.repeats)
        return
    if args.speed:
        speed(args.reps, args.seed)
        return
    if args.profile:
        profile()
        return
    if args.scaling:
        scaling(args.repeats)
        return
    start = time.perf_counter()
    rows = width_study(args.datasets, args.seed)
    summary = width_summary(rows, time.perf_counter() - start)
    write_results("guaranteed", summary)
    print({k: v for k, v in summary.items() if k not in ("rows", "environment")})


if __name__ == "__main__":
    main()
