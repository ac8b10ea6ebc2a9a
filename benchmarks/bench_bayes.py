"""Speed of the Bayesian engines: exact quadrature versus NUTS (PyMC, and nutpie if installed).

Measured in one run, on realistic datasets (n = 1000 test items, m0 = m1 = 100 calibration items):

1. exact engine, one dataset: ``ExactPosterior(data)`` plus its 95% ETI and HDI (median over
   varied datasets), and ``judgecal.posterior(data, method="exact")`` end to end;
2. exact throughput: ``exact_interval`` over many simulated datasets (ETI and HDI separately);
3. NUTS cold: a fresh interpreter fits one dataset (import timed separately), once with an empty
   pytensor compile directory (truly cold) and once with the on-disk compile cache warm;
4. NUTS warm: refits with new counts in the same process (compiled model reused), chains in
   parallel worker processes (the default ``cores``) and one after another (``cores=1``);
5. the same with ``sampler="nutpie"`` when nutpie is installed;
6. ratios between them.

    python benchmarks/bench_bayes.py [--quick] [--single 50] [--size 10000] [--budget 150]

Prints a table and writes benchmarks/results/bayes.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

import judgecal as jc  # noqa: E402
from judgecal.bayes.exact import ExactPosterior, exact_interval  # noqa: E402

N, M0, M1 = 1000, 100, 100
TARGETS = {"exact_per_dataset_ms": 20.0, "exact_datasets_per_second": 300.0,
           "nuts_warm_s": 2.0}


def simulate(size: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Counts of a coverage study: theta ~ U(0.1, 0.9), q0, q1 ~ U(0.7, 0.95)."""
    rng = np.random.default_rng(seed)
    theta = rng.uniform(0.1, 0.9, size)
    q0 = rng.uniform(0.7, 0.95, size)
    q1 = rng.uniform(0.7, 0.95, size)
    p = theta * q1 + (1 - theta) * (1 - q0)
    n, m0, m1 = (np.full(size, v) for v in (N, M0, M1))
    return rng.binomial(n, p), n, rng.binomial(m0, q0), m0, rng.binomial(m1, q1), m1


def datasets(size: int, seed: int = 0) -> list[jc.JudgeData]:
    """The simulated counts as JudgeData objects."""
    k, n, k0, m0, k1, m1 = simulate(size, seed)
    return [jc.JudgeData(k=int(a), n=int(b), k0=int(c), m0=int(d), k1=int(e), m1=int(f))
            for a, b, c, d, e, f in zip(k, n, k0, m0, k1, m1, strict=True)]


def timed(func) -> float:
    """Wall time of one call, in seconds."""
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def exact_single(count: int) -> dict[str, float]:
    """Per-dataset cost of the exact engine: ExactPosterior + 95% ETI + HDI, and posterior()."""
    data = datasets(count, seed=1)
    ExactPosterior(data[0]).interval(0.95, "hdi")  # warm-up (scipy special functions)

    def one(d: jc.JudgeData) -> None:
        engine = ExactPosterior(d)
        engine.interval(0.95, "eti")
        engine.interval(0.95, "hdi")

    engine_s = [timed(lambda d=d: one(d)) for d in data]
    jc.posterior(data[0], method="exact", draws=1000, chains=4, random_seed=0)  # warm-up (arviz)
    end_to_end_s = [timed(lambda d=d, i=i: jc.posterior(d, method="exact", draws=1000, chains=4,
                                                         random_seed=i))
                    for i, d in enumerate(data[: max(5, count // 5)])]
    return {"datasets": count, "median_s": statistics.median(engine_s),
            "p90_s": float(np.quantile(engine_s, 0.9)), "best_s": min(engine_s),
            "posterior_exact_runs": len(end_to_end_s),
            "posterior_exact_median_s": statistics.median(end_to_end_s),
            "posterior_exact_best_s": min(end_to_end_s)}


def exact_throughput(size: int, budget: float) -> dict[str, object]:
    """Datasets per second of the vectorised exact_interval, ETI and HDI separately.

    Each kind first runs on a pilot of ``min(size, 1000)`` datasets; the full ``size`` runs only
    if the pilot projects it to finish within ``budget`` seconds, else the pilot rate is reported
    (pessimistic: a smaller set shares fewer calibration groups).
    """
    counts = simulate(size, seed=2)
    exact_interval(*(c[:50] for c in counts), kind="hdi")  # warm-up
    out: dict[str, object] = {"datasets": size}
    for kind in ("eti", "hdi"):
        pilot = min(size, 1000)
        used = [c[:pilot] for c in counts]
        seconds = timed(lambda kind=kind, used=used: exact_interval(*used, kind=kind))
        if pilot < size and seconds * size / pilot <= budget:
            used = list(counts)
            seconds = timed(lambda kind=kind: exact_interval(*counts, prob=0.95, kind=kind))
        rows = len(used[0])
        groups = len(np.unique(np.stack([used[2], used[3], used[4], used[5]], axis=1), axis=0))
        out[kind] = {"datasets": rows, "calibration_groups": groups, "seconds": seconds,
                     "datasets_per_second": rows / seconds}
    return out


# The fit inside a fresh interpreter: import judgecal, one cold fit, then warm refits.
_CHILD = """
import json, statistics, sys, time, warnings
warnings.simplefilter("ignore")
t0 = time.perf_counter()
import judgecal as jc
from judgecal.bayes.model import cache_info
import_s = time.perf_counter() - t0
sampler, draws, tune, chains, warm = sys.argv[1], *map(int, sys.argv[2:6])
rows = json.loads(sys.argv[6])
data = [jc.JudgeData(**row) for row in rows]
def fit(d, seed, **options):
    t = time.perf_counter()
    post = jc.posterior(d, method="nuts", draws=draws, tune=tune, chains=chains,
                        random_seed=seed, sampler=sampler, **options)
    return time.perf_counter() - t, post
cold_s, post = fit(data[0], 1)
warm_s = [fit(d, 2 + i)[0] for i, d in enumerate(data[1:1 + warm])]
one_core = ([fit(d, 2 + i, cores=1)[0] for i, d in enumerate(data[1:1 + warm])]
            if sampler == "pymc" else [])
print(json.dumps({"import_s": import_s, "cold_s": cold_s, "warm_s": warm_s,
                  "warm_median_s": statistics.median(warm_s) if warm_s else None,
                  "warm_one_core_s": one_core,
                  "diagnostics": post.diagnostics, "flags": list(post.flags),
                  "cache": cache_info()}))
"""


def nuts_subprocess(sampler: str, draws: int, tune: int, chains: int, warm: int,
                    compiledir: str | None) -> dict[str, object]:
    """Run the child script; ``compiledir`` set means an empty pytensor compile cache."""
    rows = [{"k": d.k, "n": d.n, "k0": d.k0, "m0": d.m0, "k1": d.k1, "m1": d.m1}
            for d in datasets(warm + 1, seed=3)]
    env = dict(os.environ)
    if compiledir is not None:
        flags = [f for f in env.get("PYTENSOR_FLAGS", "").split(",") if f]
        env["PYTENSOR_FLAGS"] = ",".join(flags + [f"compiledir={compiledir}"])
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, sampler, str(draws), str(tune),
                           str(chains), str(warm), json.dumps(rows)],
                          capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"NUTS child ({sampler}) failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process_wall_s"] = time.perf_counter() - start
    result["fresh_compiledir"] = compiledir is not None
    return result


def nuts_block(sampler: str, draws: int, tune: int, chains: int, warm: int) -> dict[str, object]:
    """Truly cold (fresh compiledir) and disk-cache-warm runs, each with warm refits."""
    with tempfile.TemporaryDirectory(prefix="judgecal-bench-pytensor-") as tmp:
        fresh = nuts_subprocess(sampler, draws, tune, chains, warm, tmp)
    nuts_subprocess(sampler, draws, tune, chains, 0, None)  # make sure the disk cache is warm
    disk = nuts_subprocess(sampler, draws, tune, chains, warm, None)
    return {"fresh_compiledir": fresh, "disk_cache_warm": disk,
            "warm_median_s": statistics.median(fresh["warm_s"] + disk["warm_s"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="smaller sizes: 10 single datasets, 1,000 for throughput, "
                             "NUTS 4 x 200 draws, 1 warm refit")
    parser.add_argument("--single", type=int, default=None,
                        help="datasets timed one at a time (default 50)")
    parser.add_argument("--size", type=int, default=None,
                        help="datasets for exact_interval throughput (default 10,000)")
    parser.add_argument("--budget", type=float, default=150.0,
                        help="seconds allowed per exact_interval throughput run; beyond it the "
                             "rate of a 1,000-dataset pilot is reported")
    args = parser.parse_args()
    single = args.single or (10 if args.quick else 50)
    size = args.size or (1_000 if args.quick else 10_000)
    draws = tune = 200 if args.quick else 1000
    chains, warm = 4, (1 if args.quick else 3)

    print(f"exact engine: {single} datasets one at a time ...", flush=True)
    one = exact_single(single)
    print(f"exact_interval: {size:,} datasets ...", flush=True)
    many = exact_throughput(size, args.budget)
    print(f"NUTS (pymc): {chains} chains x {draws} draws, {tune} tune ...", flush=True)
    nuts = nuts_block("pymc", draws, tune, chains, warm)
    have_nutpie = importlib.util.find_spec("nutpie") is not None
    if have_nutpie:
        print("NUTS (nutpie) ...", flush=True)
        nutpie = nuts_block("nutpie", draws, tune, chains, warm)
    else:
        nutpie = None
        print("nutpie not installed")

    per = one["median_s"]
    fresh, disk = nuts["fresh_compiledir"], nuts["disk_cache_warm"]
    warm_s = nuts["warm_median_s"]
    ratios = {"nuts_warm_over_exact": warm_s / per,
              "nuts_cold_fresh_over_exact": fresh["cold_s"] / per,
              "nuts_cold_disk_over_exact": disk["cold_s"] / per,
              "nuts_warm_over_posterior_exact": warm_s / one["posterior_exact_median_s"],
              "exact_hdi_throughput_over_nuts_warm": many["hdi"]["datasets_per_second"] * warm_s}
    if nutpie is not None:
        ratios["nutpie_warm_over_exact"] = nutpie["warm_median_s"] / per

    def met(value: float, target: float, higher: bool = False) -> str:
        return "yes" if (value >= target if higher else value <= target) else "NO"

    nuts_label = f"{chains}x{draws}"
    table = [
        ("exact: ExactPosterior + ETI + HDI", f"{per * 1e3:.1f} ms (median of {single})",
         f"<= {TARGETS['exact_per_dataset_ms']:.0f} ms",
         met(per * 1e3, TARGETS["exact_per_dataset_ms"])),
        ("exact: p90 / best", f"{one['p90_s'] * 1e3:.1f} / {one['best_s'] * 1e3:.1f} ms", "", ""),
        ("exact: jc.posterior(method='exact')",
         f"{one['posterior_exact_median_s'] * 1e3:.1f} ms (4x1000 draws)", "", ""),
        ("exact_interval ETI throughput",
         f"{many['eti']['datasets_per_second']:,.0f} /s ({many['eti']['datasets']:,} sets)",
         f">= {TARGETS['exact_datasets_per_second']:.0f}/s",
         met(many["eti"]["datasets_per_second"], TARGETS["exact_datasets_per_second"], True)),
        ("exact_interval HDI throughput",
         f"{many['hdi']['datasets_per_second']:,.0f} /s ({many['hdi']['datasets']:,} sets)",
         f">= {TARGETS['exact_datasets_per_second']:.0f}/s",
         met(many["hdi"]["datasets_per_second"], TARGETS["exact_datasets_per_second"], True)),
        ("  (distinct calibration groups ETI/HDI)",
         f"{many['eti']['calibration_groups']:,} / {many['hdi']['calibration_groups']:,}", "", ""),
        ("import judgecal (child process)", f"{disk['import_s'] * 1e3:.0f} ms", "", ""),
        (f"NUTS cold {nuts_label}, fresh compiledir", f"{fresh['cold_s']:.2f} s", "", ""),
        (f"NUTS cold {nuts_label}, disk cache warm", f"{disk['cold_s']:.2f} s", "", ""),
        (f"NUTS warm {nuts_label} (refit, {os.cpu_count()} CPUs)",
         f"{warm_s:.2f} s (median of {len(fresh['warm_s']) + len(disk['warm_s'])})",
         f"<= {TARGETS['nuts_warm_s']:.0f} s", met(warm_s, TARGETS["nuts_warm_s"])),
        (f"NUTS warm {nuts_label} (refit, cores=1)",
         f"{statistics.median(fresh['warm_one_core_s'] + disk['warm_one_core_s']):.2f} s",
         "", ""),
    ]
    if nutpie is not None:
        table += [
            (f"nutpie cold {nuts_label}, fresh compiledir",
             f"{nutpie['fresh_compiledir']['cold_s']:.2f} s", "", ""),
            (f"nutpie cold {nuts_label}, disk cache warm",
             f"{nutpie['disk_cache_warm']['cold_s']:.2f} s", "", ""),
            (f"nutpie warm {nuts_label} (refit)", f"{nutpie['warm_median_s']:.2f} s", "", ""),
        ]
    else:
        table.append(("nutpie", "not installed", "", ""))
    table += [
        ("ratio NUTS warm / exact", f"{ratios['nuts_warm_over_exact']:,.0f} x", "", ""),
        ("ratio NUTS cold (fresh) / exact", f"{ratios['nuts_cold_fresh_over_exact']:,.0f} x",
         "", ""),
        ("ratio NUTS cold (disk) / exact", f"{ratios['nuts_cold_disk_over_exact']:,.0f} x",
         "", ""),
        ("ratio NUTS warm / posterior(exact)",
         f"{ratios['nuts_warm_over_posterior_exact']:,.0f} x", "", ""),
        ("exact HDI datasets per NUTS warm fit",
         f"{ratios['exact_hdi_throughput_over_nuts_warm']:,.0f}", "", ""),
    ]
    if nutpie is not None:
        table.append(("ratio nutpie warm / exact", f"{ratios['nutpie_warm_over_exact']:,.0f} x",
                      "", ""))
    print(f"\n{'name':<42}{'value':<30}{'target':<12}met?")
    for row in table:
        print(f"{row[0]:<42}{row[1]:<30}{row[2]:<12}{row[3]}")
    path = write_results("bayes", {
        "quick": args.quick, "n": N, "m0": M0, "m1": M1,
        "nuts_settings": {"draws": draws, "tune": tune, "chains": chains, "warm_refits": warm},
        "exact_single": one, "exact_throughput": many, "nuts_pymc": nuts,
        "nutpie": nutpie if nutpie is not None else "not installed", "ratios": ratios,
        "targets": TARGETS,
        "targets_met": {
            "exact_per_dataset": per * 1e3 <= TARGETS["exact_per_dataset_ms"],
            "exact_eti_throughput": many["eti"]["datasets_per_second"]
            >= TARGETS["exact_datasets_per_second"],
            "exact_hdi_throughput": many["hdi"]["datasets_per_second"]
            >= TARGETS["exact_datasets_per_second"],
            "nuts_warm": warm_s <= TARGETS["nuts_warm_s"],
        },
    })
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
