"""Throughput of the vectorised Lang-Reiczigel interval and the cost of `import judgestats`.

Baseline (measured in the same run): a plain Python loop over the same formula that calls
``scipy.stats.norm.ppf`` once per interval -- the cost model of the paper's reference code.

    python benchmarks/bench_closed_form.py [--size 1000000]

Prints a table and writes benchmarks/results/closed_form.json.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

import judgestats  # noqa: E402


def paper_style_interval(p, q0, q1, n, m0, m1, alpha, norm):
    """One interval the way a scalar reference implementation computes it."""
    z = norm.ppf(1 - alpha / 2)
    p, q0, q1 = (n * p + z**2 / 2) / (n + z**2), (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    n, m0, m1 = n + z**2, m0 + 2, m1 + 2
    th = (p + q0 - 1) / (q0 + q1 - 1)
    dth = 2 * z**2 * (-(1 - th) * q0 * (1 - q0) / m0 + th * q1 * (1 - q1) / m1)
    se = math.sqrt(
        p * (1 - p) / n + (1 - th) ** 2 * q0 * (1 - q0) / m0 + th**2 * q1 * (1 - q1) / m1
    ) / (q0 + q1 - 1)
    return max(0.0, min(1.0, th + dth - z * se)), max(0.0, min(1.0, th + dth + z * se))


def inputs(size: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Random but valid inputs: all six arguments vary, counts are integer arrays."""
    rng = np.random.default_rng(seed)
    n = rng.integers(100, 5000, size)
    m0 = rng.integers(10, 500, size)
    m1 = rng.integers(10, 500, size)
    k = rng.binomial(n, 0.5)
    q0 = rng.binomial(m0, 0.85) / m0
    q1 = rng.binomial(m1, 0.85) / m1
    return k / n, q0, q1, n, m0, m1


def best_of(func, repeats: int) -> float:
    """Fastest wall time of ``repeats`` calls, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def import_time(repeats: int = 7) -> dict[str, float]:
    """Median and best wall time of `import judgestats` in a fresh interpreter."""
    code = "import time; t = time.perf_counter(); import judgestats; print(time.perf_counter() - t)"
    samples = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(repeats)
    ]
    return {"median_s": statistics.median(samples), "best_s": min(samples)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument(
        "--loop-size", type=int, default=20_000, help="intervals timed in the scalar-loop baseline"
    )
    args = parser.parse_args()

    from scipy.stats import norm

    p, q0, q1, n, m0, m1 = inputs(args.size)
    vectorised_s = best_of(lambda: judgestats.lang_reiczigel_ci(p, q0, q1, n, m0, m1), 5)
    whole = judgestats.lang_reiczigel_ci(p, q0, q1, n, m0, m1)

    count = min(args.loop_size, args.size)
    columns = [a[:count].tolist() for a in (p, q0, q1, n, m0, m1)]

    def loop():
        return [paper_style_interval(*row, 0.05, norm) for row in zip(*columns, strict=True)]

    loop_s = best_of(loop, 2)
    reference = np.array(loop())
    max_diff = float(
        np.max(np.abs(reference - np.column_stack([whole.low[:count], whole.high[:count]])))
    )
    vector_rate = args.size / vectorised_s
    loop_rate = count / loop_s
    imports = import_time()
    table = [
        (
            "vectorised lang_reiczigel_ci",
            f"{vector_rate / 1e6:8.1f} M intervals/s",
            f"{vectorised_s * 1e3:.1f} ms for {args.size:,}",
        ),
        (
            "scalar loop + norm.ppf (baseline)",
            f"{loop_rate / 1e6:8.3f} M intervals/s",
            f"{loop_s * 1e3:.1f} ms for {count:,}",
        ),
        ("speed-up", f"{vector_rate / loop_rate:8.0f} x", ""),
        ("max |difference| vs baseline", f"{max_diff:.1e}", ""),
        (
            "import judgestats",
            f"{imports['median_s'] * 1e3:8.0f} ms median",
            f"best {imports['best_s'] * 1e3:.0f} ms",
        ),
    ]
    for row in table:
        print(f"{row[0]:<36}{row[1]:<26}{row[2]}")
    path = write_results(
        "closed_form",
        {
            "size": args.size,
            "vectorised_seconds": vectorised_s,
            "vectorised_intervals_per_second": vector_rate,
            "loop_intervals": count,
            "loop_seconds": loop_s,
            "loop_intervals_per_second": loop_rate,
            "speedup": vector_rate / loop_rate,
            "max_abs_difference": max_diff,
            "import_seconds": imports,
            "targets": {"intervals_per_second": 2e7, "import_s": 0.3},
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
