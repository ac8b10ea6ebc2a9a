"""The weak judge's reference quantiles of tests/test_nuts_exact_agreement.py, stored so the test
need not recompute them (about 15 s on one core).

Shares no code with ``judgestats`` (numpy and scipy only) and is independent of both engines:
given (q0, q1), p | data is Beta(k + 1, n - k + 1) cut to (1 - q0, q1) and theta = (p - 1 + q0) / J,
so P(theta <= t | q0, q1) is a ratio of Beta CDFs; (q0, q1) are weighted on a midpoint grid by their
Betas, the truncation and the mass of that cut Beta over J (uniform priors). Quantiles by Brent's
method on that CDF (xtol 1e-8). Writes ``tests/reference/weak_judge_reference.json``.

Usage (from the repository root)::

    .venv/bin/python tests/reference/make_weak_judge_reference.py
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import optimize, stats

OUT = Path(__file__).resolve().parent / "weak_judge_reference.json"

#: (k, n, k0, m0, k1, m1) of WEAK in tests/test_nuts_exact_agreement.py
COUNTS = (450, 1000, 16, 20, 18, 20)
#: judgestats.bayes.diagnostics.EXACT_CHECK_QUANTILES (checked by the test)
LEVELS = (0.025, 0.5, 0.975)
GRID = 1500
XTOL = 1e-8


def reference_cdf(counts: tuple[int, ...], grid: int = GRID) -> Callable[[float], float]:
    """The posterior CDF of theta under uniform priors and q0 + q1 > 1 (module docstring)."""
    k, n, k0, m0, k1, m1 = counts
    g = (np.arange(grid) + 0.5) / grid
    q0, q1 = np.meshgrid(g, g, indexing="ij")
    youden = q0 + q1 - 1
    inside = youden > 0
    cut = stats.beta(k + 1, n - k + 1)
    low, high = cut.cdf(1 - q0), cut.cdf(q1)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_w = (
            stats.beta.logpdf(q0, k0 + 1, m0 - k0 + 1)
            + stats.beta.logpdf(q1, k1 + 1, m1 - k1 + 1)
            + np.log(np.maximum(high - low, 1e-300))
            - np.log(np.where(inside, youden, 1.0))
        )
    log_w = np.where(inside, log_w, -np.inf)
    w = np.exp(log_w - log_w.max())
    w /= w.sum()

    def cdf(t: float) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            c = (cut.cdf(1 - q0 + youden * t) - low) / (high - low)
        return float(np.nansum(w * np.where(inside, c, 0.0)))

    return cdf


def reference_quantiles(counts: tuple[int, ...], levels, grid: int = GRID) -> list[float]:
    """Quantiles of :func:`reference_cdf` by Brent's method."""
    cdf = reference_cdf(counts, grid)
    return [optimize.brentq(lambda t, q=q: cdf(t) - q, 1e-12, 1 - 1e-12, xtol=XTOL) for q in levels]


def main() -> None:
    """Write the JSON."""
    quantiles = reference_quantiles(COUNTS, LEVELS)
    OUT.write_text(
        json.dumps(
            {
                "description": "Weak-judge quantiles of theta (make_weak_judge_reference.py).",
                "counts": list(COUNTS),
                "grid": GRID,
                "xtol": XTOL,
                "levels": list(LEVELS),
                "quantiles": quantiles,
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
