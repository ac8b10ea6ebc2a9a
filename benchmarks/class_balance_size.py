"""The class-balance test's size and power on simulated random samples (issue 24's review).

The random-design rule leaves its own candidates for the stratified rule where
:func:`judgestats.class_balance_test` rejects at p < 0.001 (``SAMPLING_ALPHA``), so a genuine
random sample should be sent away about once in a thousand. Simulation: m items labelled at
random from N = n + m, each correct with probability theta; the judge's specificity q0 and
sensitivity q1. Size: labelled and unlabelled items from the same theta. Power: the labelled
items drawn with another accuracy ``theta_l`` (a labelled set that is not a random sample).
Samples with one labelled class only, or q0-hat + q1-hat <= 1, have no test and are left out
(their share is reported). Each cell: the public ``class_balance_test`` (the delta-method
variance at the estimated rates) and, for comparison, the same statistic with half a pseudo-item
per outcome in the variance's rates (Jeffreys; written out here): a variant measured and not
adopted (the guide's "Calibration designs" says why).

    python benchmarks/class_balance_size.py [--reps 20000] [--seed 7]

Writes benchmarks/results/class_balance_size.json.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

ALPHA = 0.001
#: (m, n, q0, q1, theta): null cells, extreme accuracies and error-free arms first.
SIZE_CELLS = [
    (100, 10**6, 0.97, 0.97, 0.02), (100, 10**6, 0.97, 0.97, 0.98), (50, 10**4, 0.99, 0.9, 0.9),
    (20, 1000, 0.9, 0.9, 0.3), (100, 1000, 0.9, 0.9, 0.5), (30, 1000, 0.99, 0.99, 0.1),
    (200, 10**4, 0.7, 0.9, 0.5), (10, 100, 0.9, 0.9, 0.5), (500, 10**6, 0.99, 0.99, 0.02),
    (60, 3000, 0.93, 0.97, 0.75),
]  # fmt: skip
#: (m, n, q0, q1, theta, theta_l): labelled items from another accuracy.
POWER_CELLS = [
    (100, 10**4, 0.9, 0.9, 0.5, 0.7), (60, 3000, 0.93, 0.97, 0.6, 0.9),
    (200, 10**4, 0.97, 0.97, 0.1, 0.25), (100, 10**6, 0.97, 0.97, 0.02, 0.1),
]  # fmt: skip


def draw(m, n, q0, q1, theta, theta_l, reps, rng):
    """Counts (k, n, k0, m0, k1, m1) of ``reps`` samples, as int arrays."""
    m1 = rng.binomial(m, theta_l, reps)
    k1, k0 = rng.binomial(m1, q1), rng.binomial(m - m1, q0)
    t_u = rng.binomial(n, theta, reps)
    k = rng.binomial(t_u, q1) + rng.binomial(n - t_u, 1 - q0)
    return k, np.full(reps, n), k0, m - m1, k1, m1


def jeffreys_p_value(k, n, k0, m0, k1, m1):
    """The variant: the variance's p, q0, q1 as (x + 1/2) / (size + 1); the estimate unchanged."""
    from judgestats._closed_form import delta_variance

    phi = m1 / (m0 + m1)
    theta = (k / n - (1 - k0 / m0)) / (k0 / m0 + k1 / m1 - 1)
    p, q0, q1 = ((x + 0.5) / (size + 1.0) for x, size in ((k, n), (k0, m0), (k1, m1)))
    var = phi * (1 - phi) / (m0 + m1) + float(delta_variance(p, q0, q1, theta, n, m0, m1))
    return math.erfc(abs(phi - theta) / math.sqrt(var) / math.sqrt(2.0))


def rejection(cell, theta_l, reps, rng):
    """(public test's rejection rate, the variant's, share of samples with a test)."""
    import judgestats as jc

    counts = draw(*cell, theta_l, reps, rng)
    seen: dict[tuple[int, ...], tuple[bool, bool]] = {}
    tested = rejected = rejected_variant = 0
    for row in zip(*(c.tolist() for c in counts), strict=True):
        k, n, k0, m0, k1, m1 = row
        if m0 == 0 or m1 == 0 or k0 / m0 + k1 / m1 <= 1:
            continue
        if row not in seen:
            data = jc.JudgeData(k=k, n=n, k0=k0, m0=m0, k1=k1, m1=m1, design="random")
            now = jc.class_balance_test(data).p_value < ALPHA
            seen[row] = (now, jeffreys_p_value(*row) < ALPHA)
        tested += 1
        rejected += seen[row][0]
        rejected_variant += seen[row][1]
    return rejected / tested, rejected_variant / tested, tested / reps


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = []
    cells = [(c, c[4], "size") for c in SIZE_CELLS] + [(c[:5], c[5], "power") for c in POWER_CELLS]
    for i, (cell, theta_l, kind) in enumerate(cells):
        rng = np.random.default_rng([args.seed, i])
        now, variant, share = rejection(cell, theta_l, args.reps, rng)
        rows.append({"kind": kind, "m": cell[0], "n": cell[1], "q0": cell[2], "q1": cell[3],
                     "theta": cell[4], "theta_labelled": theta_l, "rejected": now,
                     "rejected_jeffreys_variant": variant, "tested_share": share})  # fmt: skip
        print(
            f"{kind:5} m={cell[0]:4} n={cell[1]:8} q0={cell[2]} q1={cell[3]} theta={cell[4]}"
            f" theta_l={theta_l}: rejected {now:.5f} (variant {variant:.5f})",
            flush=True,
        )
    se = math.sqrt(ALPHA * (1 - ALPHA) / args.reps)
    write_results("class_balance_size", {"reps": args.reps, "seed": args.seed, "alpha": ALPHA,
                                         "se_at_alpha": se, "cells": rows,
                                         "seconds": time.perf_counter() - start})  # fmt: skip
    print(f"SE at {ALPHA}: {se:.5f}; {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
