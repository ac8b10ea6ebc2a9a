"""Speed of the Bayesian path: the exact engine (default) versus NUTS (PyMC; nutpie if installed).

Measured in one run (issue 11 targets):

1. exact end to end, over a grid that includes weak judges: the wall time of
   ``post = jc.posterior(data); post.ci(0.95, "eti"); post.ci(0.95, "hdi")`` (JudgeStatsWarning
   silenced), each grid dataset timed once after one warm-up call; median and p90 over the grid.
   Grid: n in {100, 1000, 20000, 10**6} x m0 = m1 in {10, 30, 100, 1000} x (q0, q1) in
   {(0.55, 0.6), (0.6, 0.6), (0.7, 0.9), (0.9, 0.95)} x theta in {0.05, 0.5, 0.9} (192
   datasets) with the counts at their expected values (Python ``round``: k0 = round(m0 q0),
   k1 = round(m1 q1), k = round(n p), p = theta q1 + (1 - theta)(1 - q0));
2. on the README example data: first access of ``post.idata`` (draws x chains i.i.d. draws,
   built lazily) and ``post.summary()``;
3. exact throughput: ``exact_interval`` (ETI and HDI separately) over the datasets of a coverage
   study: 21 theta in linspace(0.05, 0.95, 21) x reps, n = 1000, m0 = m1 = 100, q0 = 0.7,
   q1 = 0.9, binomial counts drawn with a fixed seed; the full study of the target (21 x 10,000
   reps) and a smaller one (21 x 500), whose calibration groups are smaller, so the rate is
   lower (the shared work per calibration group is spread over fewer datasets);
4. NUTS cold: a fresh interpreter fits one dataset (``import judgestats`` timed separately), once
   with an empty pytensor compile directory (truly cold) and once with that directory filled by
   the first run (on-disk compile cache warm);
5. NUTS warm: refits with new counts in the same process, reusing the compilation through
   ``compiled=NutsCache()``, with ``cores=1`` and ``cores=2``;
6. the same with ``sampler="nutpie"`` when nutpie is installed;
7. ratios between them (every speed figure is relative to another measured in this run).

    python benchmarks/bench_bayes.py [--quick] [--size 210000] [--budget 300] [--warm 3]
    python benchmarks/bench_bayes.py --exact-only [--quick] [--size 10500] [--name bayes_exact]

``--quick`` (a smoke run, about 2 minutes): a 48-dataset subset of the grid (n in {100, 10**6},
m in {10, 1000}), 1,050 coverage datasets, NUTS 4 x 1000 draws in one child (empty compiledir;
the disk-cache-warm child is skipped) with one warm refit per ``cores`` setting.
Prints a table and writes benchmarks/results/bayes.json. ``--exact-only``: items 1 and 3 alone
(the grid and one study of ``--size``, default 21 x 500), with CPU time beside the wall time
(the figures to compare on a loaded machine); writes benchmarks/results/NAME.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import os
import statistics
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_nuts import CHAINS, DRAWS, TUNE, nuts_block  # noqa: E402
from _env import write_results  # noqa: E402

import judgestats as jc  # noqa: E402
from judgestats.bayes.exact import exact_interval  # noqa: E402

# --- the grid of single datasets ------------------------------------------------------------
GRID_N = (100, 1000, 20_000, 10**6)
GRID_M = (10, 30, 100, 1000)
GRID_Q = ((0.55, 0.6), (0.6, 0.6), (0.7, 0.9), (0.9, 0.95))
GRID_THETA = (0.05, 0.5, 0.9)
QUICK_N, QUICK_M = (100, 10**6), (10, 1000)  # --quick: every q pair and theta, 48 datasets
COUNT_NAMES = ("k", "n", "k0", "m0", "k1", "m1")  # the counts of a dataset, in JudgeData's order
README_DATA = {"k": 400, "n": 1000, "k0": 140, "m0": 200, "k1": 180, "m1": 200}

# --- the coverage study of exact_interval ---------------------------------------------------
THETAS = np.linspace(0.05, 0.95, 21)
N, M0, M1, Q0, Q1 = 1000, 100, 100, 0.7, 0.9
FULL_STUDY = 21 * 10_000
SMALL_STUDY = 21 * 500

TARGETS = {
    "exact_end_to_end_median_ms": 20.0,
    "exact_end_to_end_p90_ms": 60.0,
    "exact_interval_datasets_per_second": 3500.0,
}


def timed(func) -> float:
    """Wall time of one call, in seconds."""
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


# -------------------------------------------------------------------------------------------
# 1-2. exact engine, one dataset at a time
# -------------------------------------------------------------------------------------------
def grid(quick: bool) -> list[dict[str, object]]:
    """Grid cases with their settings and counts at the expected values."""
    cases = []
    for n, m, (q0, q1), theta in itertools.product(
        QUICK_N if quick else GRID_N, QUICK_M if quick else GRID_M, GRID_Q, GRID_THETA
    ):
        p = theta * q1 + (1 - theta) * (1 - q0)
        values = (round(n * p), n, round(m * q0), m, round(m * q1), m)
        counts = dict(zip(COUNT_NAMES, values, strict=True))
        cases.append({"n": n, "m": m, "q0": q0, "q1": q1, "theta": theta, "counts": counts})
    return cases


def end_to_end(data: jc.JudgeData) -> None:
    """What a user runs for one dataset: the default (exact) posterior, its 95% ETI and HDI."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        post = jc.posterior(data)
        post.ci(0.95, "eti")
        post.ci(0.95, "hdi")


def exact_grid(quick: bool) -> dict[str, object]:
    """End-to-end time of every grid dataset (each once, after one warm-up call)."""
    cases = grid(quick)
    end_to_end(jc.JudgeData(**README_DATA))  # warm-up: imports, scipy special functions
    times, cpu_times, errors = [], [], []
    for case in cases:
        data = jc.JudgeData(**case["counts"])
        try:
            cpu = time.process_time()
            seconds = timed(lambda data=data: end_to_end(data))
            cpu = time.process_time() - cpu
        except Exception as error:  # noqa: BLE001 - reported, not hidden
            case["error"] = f"{type(error).__name__}: {error}"
            errors.append(case)
            continue
        case["ms"], case["cpu_ms"] = seconds * 1e3, cpu * 1e3
        times.append(seconds * 1e3)
        cpu_times.append(cpu * 1e3)
    if not times:
        raise RuntimeError(f"every grid case failed, e.g. {errors[0]}")
    median = statistics.median(times)
    slowest = sorted((c for c in cases if "ms" in c), key=lambda c: -c["ms"])[:5]
    return {
        "datasets": len(cases),
        "timed": len(times),
        "errors": errors,
        "median_ms": median,
        "p90_ms": float(np.quantile(times, 0.9)),
        "cpu_median_ms": statistics.median(cpu_times),
        "cpu_p90_ms": float(np.quantile(cpu_times, 0.9)),
        "min_ms": min(times),
        "max_ms": max(times),
        "slowest": slowest,
        "outliers_over_3x_median": [c for c in cases if c.get("ms", 0) > 3 * median],
        "cases": cases,
    }


def readme_extras(repeats: int) -> dict[str, float]:
    """README example: first access of ``post.idata`` and ``post.summary()``.

    The very first ``idata`` access in the process includes importing arviz; it is reported
    apart from the median first access on fresh Posterior objects (arviz already loaded).
    ``summary`` is timed on fresh objects after one warm-up call (pandas import).
    """
    data = jc.JudgeData(**README_DATA)

    def fresh() -> jc.Posterior:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jc.JudgeStatsWarning)
            return jc.posterior(data, draws=DRAWS, chains=CHAINS, random_seed=0)

    arviz_loaded = "arviz" in sys.modules
    first_in_process = timed(lambda: fresh().idata)
    idata_s = []
    for _ in range(repeats):
        post = fresh()
        idata_s.append(timed(lambda post=post: post.idata))
    shape = dict(fresh().idata.posterior.sizes)
    fresh().summary()  # warm-up
    summary_s = []
    for _ in range(repeats):
        post = fresh()
        summary_s.append(timed(post.summary))
    return {
        "idata_first_in_process_s": first_in_process,
        "arviz_imported_before": arviz_loaded,
        "idata_first_access_median_s": statistics.median(idata_s),
        "idata_first_access_s": idata_s,
        "idata_shape": shape,
        "summary_median_s": statistics.median(summary_s),
        "summary_s": summary_s,
    }


# -------------------------------------------------------------------------------------------
# 3. exact throughput over a coverage study
# -------------------------------------------------------------------------------------------
def simulate(size: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Counts of a coverage study: the 21 thetas cycled over ``size`` datasets (reps each),
    n = 1000, m0 = m1 = 100, q0 = 0.7, q1 = 0.9, binomial draws from ``seed``."""
    rng = np.random.default_rng(seed)
    theta = np.resize(THETAS, size)
    p = theta * Q1 + (1 - theta) * (1 - Q0)
    n, m0, m1 = (np.full(size, v) for v in (N, M0, M1))
    return rng.binomial(n, p), n, rng.binomial(m0, Q0), m0, rng.binomial(m1, Q1), m1


def exact_throughput(size: int, budget: float, pilot: dict | None = None) -> dict[str, object]:
    """Datasets per second of the vectorised exact_interval, ETI and HDI separately.

    With a ``pilot`` (the result of a smaller study), a kind whose pilot rate projects the
    ``size`` run beyond ``budget`` seconds is not run; the pilot's figures are reported instead
    (pessimistic: a smaller study has smaller calibration groups, see the module docstring).
    """
    counts = simulate(size, seed=2)
    exact_interval(*(c[:50] for c in counts), prob=0.95, kind="hdi")  # warm-up
    out: dict[str, object] = {"requested": size}
    distinct = len(np.unique(np.stack(counts, axis=1), axis=0))
    calibration = len(np.unique(np.stack([counts[2], counts[4]], axis=1), axis=0))
    for kind in ("eti", "hdi"):
        if pilot is not None and size / pilot[kind]["datasets_per_second"] > budget:
            out[kind] = {**pilot[kind], "full_size_run": False}
            continue
        cpu = time.process_time()
        seconds = timed(lambda kind=kind: exact_interval(*counts, prob=0.95, kind=kind))
        cpu = time.process_time() - cpu
        rate = size / seconds
        out[kind] = {
            "datasets": size,
            "full_size_run": True,
            "distinct_datasets": distinct,
            "distinct_calibration_pairs": calibration,
            "seconds": seconds,
            "datasets_per_second": rate,
            "cpu_seconds": cpu,
            "datasets_per_cpu_second": size / cpu,
            "implied_s_for_21x10000": FULL_STUDY / rate,
        }
    return out


# -------------------------------------------------------------------------------------------
# 4-6. NUTS in a fresh interpreter (benchmarks/_bench_nuts.py)
# -------------------------------------------------------------------------------------------
def nuts_datasets(warm: int) -> list[dict[str, int]]:
    """Counts for a NUTS child: one cold fit and ``warm`` refits, from the coverage study."""
    counts = simulate(warm + 1, seed=3)
    return [dict(zip(COUNT_NAMES, map(int, row), strict=True)) for row in zip(*counts, strict=True)]


# -------------------------------------------------------------------------------------------
def exact_only(quick: bool, size: int, name: str) -> None:
    """``--exact-only``: the exact grid and one coverage study, wall and CPU time, no NUTS."""
    load = os.getloadavg()
    single = exact_grid(quick)
    study = exact_throughput(size, budget=float("inf"))
    print(
        f"grid ({single['timed']} datasets): median {single['median_ms']:.1f} ms "
        f"(CPU {single['cpu_median_ms']:.1f} ms), p90 {single['p90_ms']:.1f} ms "
        f"(CPU {single['cpu_p90_ms']:.1f} ms)"
    )
    for kind in ("eti", "hdi"):
        row = study[kind]
        print(
            f"exact_interval {kind.upper()} ({size:,} datasets): "
            f"{row['datasets_per_second']:,.0f} /s wall, "
            f"{row['datasets_per_cpu_second']:,.0f} /s CPU"
        )
    after = os.getloadavg()
    print(f"load average before {load[0]:.2f}, after {after[0]:.2f}")
    path = write_results(
        name,
        {
            "quick": quick,
            "load_average_before_after": [load, after],
            "exact_end_to_end": {k: v for k, v in single.items() if k != "cases"},
            "exact_throughput": study,
            "targets": TARGETS,
        },
    )
    print(f"wrote {path}")


# -------------------------------------------------------------------------------------------
# the full run: measurements, ratios and targets, table, results
# -------------------------------------------------------------------------------------------
Row = tuple[str, str, str, str]
TABLE_HEADER: Row = ("measure", "result", "target", "met")
NUTS_LABEL = f"{CHAINS}x{DRAWS}+{TUNE} tune"
RATIO_ROWS = (  # (measure, key of speed_ratios, format): the first rows of ratios, in order
    ("ratio NUTS warm cores=1 / exact median", "nuts_warm_cores1_over_exact", ",.0f"),
    ("ratio NUTS warm cores=2 / exact median", "nuts_warm_cores2_over_exact", ",.0f"),
    ("ratio NUTS cold (empty dir) / exact median", "nuts_cold_fresh_over_exact", ",.0f"),
    ("ratio NUTS warm cores=1 / cores=2", "nuts_warm_cores1_over_cores2", ".2f"),
)


@dataclass
class FullRun:
    """Settings and measurements of a full run (items 1-6 of the module docstring)."""

    quick: bool
    size: int
    budget: float
    warm: int
    grid_timing: dict[str, object]
    readme_example: dict[str, object]
    small_study: dict[str, object] | None
    study: dict[str, object]
    nuts_pymc: dict[str, object]
    nutpie: dict[str, object] | None


def parse_args() -> argparse.Namespace:
    """Parse the command line (options in the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 48 grid datasets, 1,050 coverage datasets, one NUTS child "
        "(empty compiledir) with one warm refit per cores setting",
    )
    parser.add_argument(
        "--size",
        type=int,
        default=None,
        help="coverage datasets for exact_interval (default 21*10,000 = 210,000; quick 21*50)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=300.0,
        help="seconds allowed per exact_interval run of --size, projected from "
        "the 21 x 500 study; beyond it that study's rate is reported",
    )
    parser.add_argument(
        "--warm",
        type=int,
        default=None,
        help="NUTS warm refits per cores setting and child (default 3; quick 1)",
    )
    parser.add_argument(
        "--exact-only",
        action="store_true",
        help="the exact engine alone: the grid and one exact_interval study of --size "
        "(default 21 x 500), wall and CPU time; writes benchmarks/results/NAME.json",
    )
    parser.add_argument(
        "--name", default="bayes_exact", help="results file of --exact-only (default bayes_exact)"
    )
    return parser.parse_args()


def full_run(quick: bool, size: int | None, budget: float, warm: int | None) -> FullRun:
    """Measure items 1-6 of the module docstring, printing progress as it goes."""
    size = size or (21 * 50 if quick else FULL_STUDY)
    warm = warm or (1 if quick else 3)
    repeats = 3 if quick else 10

    print(f"exact end to end over the {'quick ' if quick else ''}grid ...", flush=True)
    single = exact_grid(quick)
    print(f"  median {single['median_ms']:.1f} ms, p90 {single['p90_ms']:.1f} ms", flush=True)
    print("README example: idata and summary ...", flush=True)
    extras = readme_extras(repeats)
    print(
        f"  first idata {extras['idata_first_access_median_s'] * 1e3:.1f} ms, "
        f"summary {extras['summary_median_s'] * 1e3:.1f} ms",
        flush=True,
    )
    print(f"exact_interval: {size:,} coverage datasets ...", flush=True)
    small = None if quick else exact_throughput(SMALL_STUDY, budget)
    many = exact_throughput(size, budget, pilot=small)
    print(
        f"  ETI {many['eti']['datasets_per_second']:,.0f} /s, "
        f"HDI {many['hdi']['datasets_per_second']:,.0f} /s",
        flush=True,
    )
    print(
        f"NUTS (pymc): {CHAINS} chains x {DRAWS} draws, {TUNE} tune, {warm} warm refit(s) "
        "per cores setting and child ...",
        flush=True,
    )
    nuts = nuts_block("pymc", nuts_datasets(warm), disk_run=not quick)
    nutpie = None
    if importlib.util.find_spec("nutpie") is not None:
        print("NUTS (nutpie) ...", flush=True)
        nutpie = nuts_block("nutpie", nuts_datasets(warm), disk_run=not quick)
    return FullRun(quick, size, budget, warm, single, extras, small, many, nuts, nutpie)


def speed_ratios(run: FullRun) -> dict[str, float | None]:
    """Ratios between the run's measurements (item 7 of the module docstring)."""
    median_s = run.grid_timing["median_ms"] / 1e3
    disk = run.nuts_pymc["disk_cache_warm"]
    warm1, warm2 = run.nuts_pymc["warm_cores1_median_s"], run.nuts_pymc["warm_cores2_median_s"]
    extras = run.readme_example
    ratios = {
        "nuts_warm_cores1_over_exact": warm1 / median_s,
        "nuts_warm_cores2_over_exact": warm2 / median_s,
        "nuts_cold_fresh_over_exact": run.nuts_pymc["fresh_compiledir"]["cold_s"] / median_s,
        "nuts_cold_disk_over_exact": disk["cold_s"] / median_s if disk else None,
        "nuts_warm_cores1_over_cores2": warm1 / warm2,
        "exact_eti_per_nuts_warm_fit": run.study["eti"]["datasets_per_second"] * min(warm1, warm2),
        "exact_hdi_per_nuts_warm_fit": run.study["hdi"]["datasets_per_second"] * min(warm1, warm2),
        "idata_over_exact": extras["idata_first_access_median_s"] / median_s,
        "summary_over_exact": extras["summary_median_s"] / median_s,
    }
    if run.nutpie is not None:
        ratios["nutpie_warm_over_exact"] = run.nutpie["warm_cores1_median_s"] / median_s
    return ratios


def targets_met(run: FullRun) -> dict[str, bool]:
    """Whether each issue-11 target in ``TARGETS`` is met by the run."""
    single, rate = run.grid_timing, TARGETS["exact_interval_datasets_per_second"]
    return {
        "exact_end_to_end_median": single["median_ms"] <= TARGETS["exact_end_to_end_median_ms"],
        "exact_end_to_end_p90": single["p90_ms"] <= TARGETS["exact_end_to_end_p90_ms"],
        "exact_interval_eti": run.study["eti"]["datasets_per_second"] >= rate,
        "exact_interval_hdi": run.study["hdi"]["datasets_per_second"] >= rate,
    }


def _row(measure: str, result: str, target: str = "", met: str = "") -> Row:
    """A table row; the target and whether it is met are blank where there is none."""
    return (measure, result, target, met)


def _yes(flag: bool) -> str:
    """The table's ``met`` cell."""
    return "yes" if flag else "NO"


def exact_rows(run: FullRun, met: dict[str, bool]) -> list[Row]:
    """Table rows of the exact engine: the grid, the README example, exact_interval."""
    single, extras, many = run.grid_timing, run.readme_example, run.study
    rate_target = f">= {TARGETS['exact_interval_datasets_per_second']:,.0f}/s"
    first_idata = f"{extras['idata_first_in_process_s'] * 1e3:.0f} ms" + (
        "" if extras["arviz_imported_before"] else " (incl. arviz import)"
    )
    rows = [
        _row(
            "exact end to end (posterior + ETI + HDI), median",
            f"{single['median_ms']:.1f} ms ({single['timed']} datasets)",
            f"<= {TARGETS['exact_end_to_end_median_ms']:.0f} ms",
            _yes(met["exact_end_to_end_median"]),
        ),
        _row(
            "exact end to end, p90",
            f"{single['p90_ms']:.1f} ms",
            f"<= {TARGETS['exact_end_to_end_p90_ms']:.0f} ms",
            _yes(met["exact_end_to_end_p90"]),
        ),
        _row("exact end to end, min / max", f"{single['min_ms']:.1f} / {single['max_ms']:.1f} ms"),
        _row("README data: first post.idata (in process)", first_idata),
        _row(
            "README data: first post.idata (fresh post)",
            f"{extras['idata_first_access_median_s'] * 1e3:.1f} ms ({CHAINS}x{DRAWS})",
        ),
        _row("README data: post.summary()", f"{extras['summary_median_s'] * 1e3:.1f} ms"),
    ]
    for kind in ("eti", "hdi"):
        rows.append(
            _row(
                f"exact_interval {kind.upper()} throughput",
                f"{many[kind]['datasets_per_second']:,.0f} /s ({many[kind]['datasets']:,} sets)",
                rate_target,
                _yes(met[f"exact_interval_{kind}"]),
            )
        )
    distinct = f"{many['eti']['distinct_datasets']:,} / {many['hdi']['distinct_datasets']:,}"
    implied = [f"{many[kind]['implied_s_for_21x10000']:.0f}" for kind in ("eti", "hdi")]
    rows += [
        _row("  distinct datasets ETI / HDI", distinct),
        _row("  implied 21 x 10,000 reps ETI / HDI", " / ".join(implied) + " s", "<= 60 s"),
    ]
    if run.small_study is not None:
        small_rates = [f"{run.small_study[k]['datasets_per_second']:,.0f}" for k in ("eti", "hdi")]
        rows.append(
            _row("exact_interval ETI / HDI, 21 x 500 study", " / ".join(small_rates) + " /s")
        )
    return rows


def nuts_rows(run: FullRun) -> list[Row]:
    """Table rows of NUTS: the child's import, cold fits and warm refits; nutpie's likewise."""
    nuts, nutpie, label = run.nuts_pymc, run.nutpie, NUTS_LABEL
    fresh, disk = nuts["fresh_compiledir"], nuts["disk_cache_warm"]
    refits = f"(median of {nuts['warm_refits']})"
    rows = [
        _row("import judgestats (child process)", f"{fresh['import_s'] * 1e3:.0f} ms"),
        _row(f"NUTS cold {label}, empty compiledir", f"{fresh['cold_s']:.2f} s"),
        _row(
            f"NUTS cold {label}, disk cache warm",
            f"{disk['cold_s']:.2f} s" if disk else "skipped (--quick)",
        ),
        _row(f"NUTS warm refit {label}, cores=1", f"{nuts['warm_cores1_median_s']:.2f} s {refits}"),
        _row(
            f"NUTS warm refit {label}, cores=2 ({os.cpu_count()} CPUs)",
            f"{nuts['warm_cores2_median_s']:.2f} s {refits}",
        ),
    ]
    if nutpie is None:
        return rows + [_row("nutpie", "not installed")]
    nutpie_disk = nutpie["disk_cache_warm"]
    return rows + [
        _row(
            f"nutpie cold {label}, empty compiledir",
            f"{nutpie['fresh_compiledir']['cold_s']:.2f} s",
        ),
        _row(
            f"nutpie cold {label}, disk cache warm",
            f"{nutpie_disk['cold_s']:.2f} s" if nutpie_disk else "skipped (--quick)",
        ),
        _row(f"nutpie warm refit {label}", f"{nutpie['warm_cores1_median_s']:.2f} s"),
    ]


def ratio_rows(ratios: dict[str, float | None]) -> list[Row]:
    """Table rows of the ratios (the nutpie row only where nutpie ran)."""
    rows = [_row(measure, f"{ratios[key]:{spec}} x") for measure, key, spec in RATIO_ROWS]
    per_fit = [f"{ratios[f'exact_{kind}_per_nuts_warm_fit']:,.0f}" for kind in ("eti", "hdi")]
    rows.append(_row("exact intervals per NUTS warm fit ETI / HDI", " / ".join(per_fit)))
    if "nutpie_warm_over_exact" in ratios:
        nutpie = f"{ratios['nutpie_warm_over_exact']:,.0f} x"
        rows.append(_row("ratio nutpie warm / exact median", nutpie))
    return rows


def print_table(rows: list[Row]) -> None:
    """Print the rows as a Markdown table under ``TABLE_HEADER``."""
    widths = [max(len(row[i]) for row in [TABLE_HEADER, *rows]) for i in range(4)]
    print()
    for row in [TABLE_HEADER, tuple("-" * w for w in widths), *rows]:
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |")


def print_grid_notes(single: dict[str, object]) -> None:
    """Print the grid cases that raised, if any, and the slowest grid cases."""
    if single["errors"]:
        print(f"\n{len(single['errors'])} grid case(s) raised:")
        for case in single["errors"]:
            print(f"  {case['counts']}: {case['error']}")
    print("\nslowest grid cases:")
    for case in single["slowest"]:
        print(f"  {case['ms']:7.1f} ms  {case['counts']}")


def write_full_results(run: FullRun, ratios: dict[str, float | None], met: dict[str, bool]) -> Path:
    """Write the settings, measurements, ratios and targets to benchmarks/results/bayes.json."""
    quick = run.quick
    grid_sizes = dict(n=QUICK_N if quick else GRID_N, m=QUICK_M if quick else GRID_M)
    study_settings = dict(thetas=THETAS.tolist(), n=N, m0=M0, m1=M1, q0=Q0, q1=Q1)
    settings = {
        "grid": {**grid_sizes, "q0_q1": GRID_Q, "theta": GRID_THETA},
        "coverage_study": {**study_settings, "size": run.size, "budget_s": run.budget},
        "nuts": dict(
            draws=DRAWS, tune=TUNE, chains=CHAINS, warm_refits_per_cores_and_child=run.warm
        ),
    }
    return write_results(
        "bayes",
        {
            "quick": quick,
            "settings": settings,
            "exact_end_to_end": run.grid_timing,
            "readme_example": run.readme_example,
            "exact_throughput": run.study,
            "exact_throughput_small_study": run.small_study,
            "nuts_pymc": run.nuts_pymc,
            "nutpie": run.nutpie if run.nutpie is not None else "not installed",
            "ratios": ratios,
            "targets": TARGETS,
            "targets_met": met,
        },
    )


def main() -> None:
    """Run the benchmark: ``--exact-only`` or the full run with its table and results file."""
    args = parse_args()
    if args.exact_only:
        exact_only(args.quick, args.size or SMALL_STUDY, args.name)
        return
    run = full_run(args.quick, args.size, args.budget, args.warm)
    ratios, met = speed_ratios(run), targets_met(run)
    print_table(exact_rows(run, met) + nuts_rows(run) + ratio_rows(ratios))
    print_grid_notes(run.grid_timing)
    print(f"wrote {write_full_results(run, ratios, met)}")


if __name__ == "__main__":
    main()
