"""Outputs of the exact posterior paths before the issue-27 speed work, as a regression fixture.

Run from the commit before that work (``e2a9aa3``)::

    PYTHONPATH=src python tests/reference/make_exact_speed_fixture.py

It writes ``tests/fixtures/exact_speed/reference.npz``: the 95% equal-tailed and shortest theta
intervals of ``exact_interval`` over datasets chosen to break a rewrite (calibration groups of
several datasets, served by the shared table, and lone datasets, served by the per-dataset rule;
weak judges near chance, tiny arms of 1-5 items, n from 1 to 10**6, estimates near 0 and 1), and
those of ``judgestats.posterior(data).ci`` on a subset. ``tests/test_posterior_speed.py`` holds
the current engine to them within 1e-9.
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "exact_speed" / "reference.npz"
#: Calibration counts (k0, m0, k1, m1): weak judges near chance, strong ones near 1 and 0,
#: tiny arms, one large arm.
CALIBRATION = (
    (11, 20, 12, 20),
    (55, 100, 60, 100),
    (70, 100, 90, 100),
    (99, 100, 95, 100),
    (3, 5, 4, 5),
    (1, 1, 1, 2),
    (2, 3, 0, 3),
    (560, 1000, 590, 1000),
    (30, 40, 1, 40),
)
#: Test sets (n) and the fractions of positives among them.
SIZES = (1, 7, 100, 1000, 20_000, 10**6)
FRACTIONS = (0.0, 0.02, 0.3, 0.5, 0.62, 0.9, 1.0)


def datasets() -> np.ndarray:
    """Rows (k, n, k0, m0, k1, m1): every calibration x n x fraction (groups share calibration)."""
    rows = [
        (round(f * n), n, k0, m0, k1, m1)
        for (k0, m0, k1, m1), n, f in itertools.product(CALIBRATION, SIZES, FRACTIONS)
    ]
    return np.unique(np.array(rows, dtype=np.int64), axis=0)


def study(reps: int = 20, seed: int = 2) -> np.ndarray:
    """Rows of a small coverage study as in ``benchmarks/bench_bayes.py`` (21 theta x reps)."""
    rng = np.random.default_rng(seed)
    theta = np.resize(np.linspace(0.05, 0.95, 21), 21 * reps)
    n, m0, m1 = (np.full(theta.size, v) for v in (1000, 20, 20))
    k = rng.binomial(n, theta * 0.9 + (1 - theta) * 0.3)
    return np.stack([k, n, rng.binomial(m0, 0.7), m0, rng.binomial(m1, 0.9), m1], axis=1)


def singles(counts: np.ndarray) -> np.ndarray:
    """Indices of the rows also run through ``judgestats.posterior`` (every fifth)."""
    return np.arange(0, counts.shape[0], 5)


def main() -> None:
    import judgestats as jc
    from judgestats.bayes.exact import exact_interval

    counts = np.concatenate([datasets(), study()])
    out: dict[str, np.ndarray] = {"counts": counts}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind in ("eti", "hdi"):
            low, high = exact_interval(*counts.T, prob=0.95, kind=kind, workers=1)
            out[f"batch_{kind}"] = np.stack([low, high], axis=1)
        single = []
        for i in singles(counts):
            names = ("k", "n", "k0", "m0", "k1", "m1")
            data = jc.JudgeData(**dict(zip(names, map(int, counts[i]), strict=True)))
            try:
                post = jc.posterior(data)
            except ValueError:  # not integrable: the test asserts the same error
                single.append([np.nan] * 4)
                continue
            single.append([*post.ci(0.95, "eti"), *post.ci(0.95, "hdi")])
        out["single"] = np.array(single)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **out)
    print(f"{counts.shape[0]} datasets, {len(single)} single posteriors -> {OUT}")


if __name__ == "__main__":
    main()
