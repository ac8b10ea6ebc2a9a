"""Speed of the stratified posterior (NUTS on the hierarchical model) through the public function.

What a user pays for ``judgestats.stratified.stratified_posterior(data)`` on the three-stratum
example of ``notebooks/stratified_calibration.ipynb`` (coding / writing / maths, 200 calibration
items per arm) at the defaults (4 chains x 1000 draws + 1000 tuning steps):

1. cold: a fresh interpreter with an empty pytensor compile directory (compilation included);
2. disk-cache warm: a second fresh interpreter on the now filled compile directory;
3. warm refits in the same process with ``compiled=NutsCache()`` (new seeds), the figure for a
   notebook or a loop over many datasets, with the chains in this process (``cores=1``, the
   default) and in two (``cores=2``; CPU time then counts this process only);
4. the same refits on the notebook's small-maths variant (six calibration items per arm in one
   stratum, ``target_accept=0.95``), where the sampler takes smaller steps.

Each child reports wall and CPU time (CPU time is the figure to compare on a shared machine).

    python benchmarks/bench_stratified.py [--refits 3] [--draws 1000]

Prints a table and writes benchmarks/results/stratified_speed.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _bench_nuts import pytensor_environment  # noqa: E402
from _env import write_results  # noqa: E402

_CHILD = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from judgestats.bayes.nuts import NutsCache
from judgestats.stratified import StratifiedData, stratified_posterior
draws, refits = int(sys.argv[1]), int(sys.argv[2])
big = {"coding": dict(k=1530, n=2400, k0=190, m0=200, k1=188, m1=200),
       "writing": dict(k=700, n=1200, k0=180, m0=200, k1=186, m1=200),
       "maths": dict(k=210, n=400, k0=130, m0=200, k1=140, m1=200)}
small = {**big, "maths": dict(k=210, n=400, k0=4, m0=6, k1=5, m1=6)}
cache = NutsCache()
def fit(counts, seed, target_accept, cores=1):
    wall, cpu = time.perf_counter(), time.process_time()
    stratified_posterior(StratifiedData.from_counts(counts), draws=draws, tune=draws,
                         random_seed=seed, target_accept=target_accept, compiled=cache,
                         cores=cores)
    return time.perf_counter() - wall, time.process_time() - cpu
first = fit(big, 1, 0.9)
warm = [fit(big, 2 + i, 0.9) for i in range(refits)]
warm2 = [fit(big, 2 + i, 0.9, cores=2) for i in range(refits)]
fit(small, 1, 0.95)
small_warm = [fit(small, 2 + i, 0.95) for i in range(refits)]
print(json.dumps({"first": first, "warm": warm, "warm_cores2": warm2, "small_warm": small_warm}))
"""


def child(draws: int, refits: int, compiledir: str) -> dict[str, object]:
    """Run the child script with pytensor's compile directory set to ``compiledir``."""
    env = pytensor_environment(compiledir)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(draws), str(refits)],
        capture_output=True,
        text=True,
        env=env,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"child failed:\n{proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_wall_s"] = time.perf_counter() - start
    return out


def median_pair(pairs: list[list[float]]) -> tuple[float, float]:
    """Median wall and median CPU seconds of (wall, cpu) pairs."""
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--refits", type=int, default=3, help="warm refits per dataset")
    parser.add_argument("--draws", type=int, default=1000, help="draws (and tuning steps)")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="judgestats-bench-pytensor-") as tmp:
        cold = child(args.draws, args.refits, tmp)
        disk = child(args.draws, args.refits, tmp)
    warm = median_pair(cold["warm"] + disk["warm"])
    warm2 = median_pair(cold["warm_cores2"] + disk["warm_cores2"])
    small = median_pair(cold["small_warm"] + disk["small_warm"])
    rows = [
        ("first fit, empty compile directory", cold["first"]),
        ("first fit, compile directory filled", disk["first"]),
        (f"warm refit, median of {2 * args.refits}", warm),
        (f"warm refit, cores=2, median of {2 * args.refits}", warm2),
        (f"warm refit, 6-item maths arms, median of {2 * args.refits}", small),
    ]
    print(f"4 chains x {args.draws} draws + {args.draws} tune; load before {load_before[0]:.2f}")
    print("| stratified_posterior, 3 strata | wall s | CPU s |\n|---|---|---|")
    for name, (wall, cpu) in rows:
        print(f"| {name} | {wall:.2f} | {cpu:.2f} |")
    path = write_results(
        "stratified_speed",
        {
            "command": " ".join(sys.argv[1:]),
            "draws": args.draws,
            "load_before": load_before,
            "load_after": os.getloadavg(),
            "cold_child": cold,
            "disk_warm_child": disk,
            "warm_refit_median_wall_cpu_s": warm,
            "warm_refit_cores2_median_wall_cpu_s": warm2,
            "small_arm_refit_median_wall_cpu_s": small,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
