"""Candidate (d), the guaranteed judge-using interval, against the labels-only exact intervals.

For every cell of a grid (labelled items m in {10, 20, 40}; unlabelled n in {100, 1000,
100000}; judges q0 = q1 in {0.6, 0.8, 0.95}; theta in {0.1, 0.5}) ``--datasets`` random-design
datasets are drawn (m1 ~ Bin(m, theta), the 2x2 table, k ~ Bin(n, pi)) and on each one the
widths of ``guaranteed_judge`` (judgestats.designs.random_guaranteed), labels-only Blaker (a),
labels-only Clopper-Pearson and PPI++ (judgestats' small-sample version; approximate) are
computed, for both targets. The table gives per cell the mean widths, the share of datasets
where (d) is narrower than Blaker, and the median seconds per (d) interval. Coverage is not
estimated here: (d) is exact by construction, and its coverage is checked by enumerating every
outcome of tiny designs in tests/test_random_guaranteed.py.

    python benchmarks/random_guaranteed.py [--datasets 8] [--seed 24]

Writes benchmarks/results/random_guaranteed.json and benchmarks/results/random_guaranteed.md.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import RESULTS, write_results  # noqa: E402

from judgestats import JudgeStatsWarning  # noqa: E402
from judgestats.designs.random_candidates import count_candidates  # noqa: E402

M = [10, 20, 40]
N = [100, 1000, 100_000]
JUDGES = [0.6, 0.8, 0.95]
THETA = [0.1, 0.5]
NAMES = ("guaranteed_judge", "labels_only_blaker", "labels_only_cp", "ppi_pp")


def draw(rng: np.random.Generator, m: int, n: int, q: float, theta: float) -> tuple[int, ...]:
    """One random-design dataset (k, n, k0, m0, k1, m1)."""
    m1 = int(rng.binomial(m, theta))
    k0, k1 = int(rng.binomial(m - m1, q)), int(rng.binomial(m1, q))
    k = int(rng.binomial(n, theta * q + (1 - theta) * (1 - q)))
    return k, n, k0, m - m1, k1, m1


def cell(rng: np.random.Generator, m: int, n: int, q: float, theta: float, datasets: int) -> dict:
    """Widths of every candidate on ``datasets`` datasets of one cell, both targets."""
    out: dict = {"m": m, "n": n, "q0": q, "q1": q, "theta": theta}
    for target in ("population", "items"):
        widths: dict[str, list[float]] = {name: [] for name in NAMES}
        seconds = []
        for _ in range(datasets):
            counts = draw(rng, m, n, q, theta)
            start = time.perf_counter()
            found = count_candidates(*counts, target=target, level=0.95, guaranteed_judge=True)
            seconds.append(time.perf_counter() - start)
            for name in NAMES:
                widths[name].append(found[name][2] - found[name][1])
        d, blaker = np.array(widths["guaranteed_judge"]), np.array(widths["labels_only_blaker"])
        out[target] = {
            "mean_width": {name: float(np.mean(w)) for name, w in widths.items()},
            "share_narrower_than_blaker": float(np.mean(d < blaker)),
            "median_seconds": float(np.median(seconds)),
        }
    return out


def table(rows: list[dict], target: str) -> list[str]:
    lines = [
        f"### target = {target}",
        "",
        "| m | n | q0 = q1 | theta | (d) guaranteed_judge | Blaker (a) | Clopper-Pearson "
        "| PPI++ | (d) / Blaker | (d) narrower | s per dataset |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        part = row[target]
        w = part["mean_width"]
        lines.append(
            f"| {row['m']} | {row['n']:,} | {row['q0']} | {row['theta']} | "
            f"{w['guaranteed_judge']:.3f} | {w['labels_only_blaker']:.3f} | "
            f"{w['labels_only_cp']:.3f} | {w['ppi_pp']:.3f} | "
            f"{w['guaranteed_judge'] / w['labels_only_blaker']:.2f} | "
            f"{part['share_narrower_than_blaker']:.0%} | {part['median_seconds']:.2f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=8)
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    rows = []
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        for m in M:
            for n in N:
                for q in JUDGES:
                    for theta in THETA:
                        rows.append(cell(rng, m, n, q, theta, args.datasets))
                        print(table(rows[-1:], "population")[-1], flush=True)
    elapsed = time.perf_counter() - start
    command = (
        f"python benchmarks/random_guaranteed.py --datasets {args.datasets} --seed {args.seed}"
    )
    summary = []
    for target in ("population", "items"):
        ratio = [r[target]["mean_width"]["guaranteed_judge"] / r[target]["mean_width"][
            "labels_only_blaker"] for r in rows]  # fmt: skip
        summary.append(
            f"- {target}: (d) narrower than Blaker on average in {sum(x < 1 for x in ratio)} of "
            f"{len(ratio)} cells; median width ratio {np.median(ratio):.2f}, range "
            f"{min(ratio):.2f}-{max(ratio):.2f}"
        )
    md = [
        "# Candidate (d), guaranteed_judge, against the labels-only exact intervals",
        "",
        f"`{command}` ({args.datasets} datasets a cell, 95% level, mean widths; load average "
        f"before the run {' '.join(load)}; {elapsed:.0f} s in all).",
        "",
        *summary,
        "",
        *table(rows, "population"),
        "",
        *table(rows, "items"),
        "",
    ]
    (RESULTS / "random_guaranteed.md").write_text("\n".join(md))
    write_results(
        "random_guaranteed",
        {"command": command, "loadavg_before": load, "seconds": elapsed, "rows": rows},
    )
    print("\n".join(summary))


if __name__ == "__main__":
    main()
