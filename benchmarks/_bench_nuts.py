"""NUTS timing in fresh interpreters for ``bench_bayes.py`` (items 4-6 of its docstring).

A child interpreter imports judgestats (timed), fits the first dataset cold and refits the
others warm through one ``NutsCache``, with ``cores=1`` and (PyMC only) ``cores=2``; pytensor's
compile directory is set per child, so a run can start from an empty or from a filled cache.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# --- NUTS settings (issue 11) ---------------------------------------------------------------
DRAWS = TUNE = 1000
CHAINS = 4

_CHILD = """
import json, statistics, sys, time, warnings
warnings.simplefilter("ignore")
t0 = time.perf_counter()
import judgestats as jc
import_s = time.perf_counter() - t0
from judgestats.bayes.nuts import NutsCache
sampler, draws, tune, chains, warm = sys.argv[1], *map(int, sys.argv[2:6])
data = [jc.JudgeData(**row) for row in json.loads(sys.argv[6])]
cache = NutsCache()
def fit(d, seed, cores):
    t = time.perf_counter()
    post = jc.posterior(d, method="nuts", draws=draws, tune=tune, chains=chains,
                        random_seed=seed, sampler=sampler, cores=cores, compiled=cache)
    return time.perf_counter() - t, post
cold_s, post = fit(data[0], 1, 1)
refits = data[1:1 + warm]
one = [fit(d, 2 + i, 1)[0] for i, d in enumerate(refits)]
two = [fit(d, 2 + i, 2)[0] for i, d in enumerate(refits)] if sampler == "pymc" else []
print(json.dumps({"import_s": import_s, "cold_s": cold_s, "warm_cores1_s": one,
                  "warm_cores2_s": two, "diagnostics": post.diagnostics,
                  "flags": list(post.flags), "cache": cache.info()}))
"""


def pytensor_environment(compiledir: str) -> dict[str, str]:
    """This process's environment with PYTENSOR_FLAGS' ``compiledir`` set to ``compiledir``."""
    env = dict(os.environ)
    flags = [
        f for f in env.get("PYTENSOR_FLAGS", "").split(",") if f and not f.startswith("compiledir=")
    ]
    env["PYTENSOR_FLAGS"] = ",".join([*flags, f"compiledir={compiledir}"])
    return env


def nuts_subprocess(
    sampler: str, datasets: list[dict[str, int]], compiledir: str
) -> dict[str, object]:
    """Time NUTS fits in a child interpreter whose pytensor compile directory is ``compiledir``.

    Parameters
    ----------
    sampler : str
        ``"pymc"`` or ``"nutpie"``.
    datasets : list of dict
        Counts (``k, n, k0, m0, k1, m1``): the first is fitted cold, the others are refitted
        warm (once per ``cores`` setting).
    compiledir : str
        Pytensor's compile directory for the child.

    Returns
    -------
    dict
        The child's timings, diagnostics, flags and cache info, plus ``process_wall_s``.
    """
    env = pytensor_environment(compiledir)
    warm = len(datasets) - 1
    settings = [str(value) for value in (DRAWS, TUNE, CHAINS, warm)]
    command = [sys.executable, "-c", _CHILD, sampler, *settings, json.dumps(datasets)]
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"NUTS child ({sampler}) failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process_wall_s"] = time.perf_counter() - start
    return result


def nuts_block(
    sampler: str, datasets: list[dict[str, int]], disk_run: bool = True
) -> dict[str, object]:
    """Truly cold (empty compiledir) and disk-cache-warm (same dir, now filled) child runs.

    Parameters
    ----------
    sampler : str
        ``"pymc"`` or ``"nutpie"``.
    datasets : list of dict
        Counts for each child: one cold fit, then the warm refits.
    disk_run : bool
        Whether to run the second, disk-cache-warm child (``--quick`` skips it).

    Returns
    -------
    dict
        Both children's results and the median warm refit time per ``cores`` setting.
    """
    with tempfile.TemporaryDirectory(prefix="judgestats-bench-pytensor-") as tmp:
        runs = [nuts_subprocess(sampler, datasets, tmp)]
        if disk_run:
            runs.append(nuts_subprocess(sampler, datasets, tmp))
    one = [s for run in runs for s in run["warm_cores1_s"]]
    two = [s for run in runs for s in run["warm_cores2_s"]]
    return {
        "fresh_compiledir": runs[0],
        "disk_cache_warm": runs[1] if disk_run else None,
        "warm_refits": len(one),
        "warm_cores1_median_s": statistics.median(one) if one else None,
        "warm_cores2_median_s": statistics.median(two) if two else None,
    }
