"""Brute-force references of tests/test_bayes_exact.py, stored so the tests need not recompute them.

Shares no code with ``judgestats`` (numpy and scipy only). Writes
``tests/reference/exact_brute_force.json``:

* ``small_cases``: the posterior CDF of theta at 0.2 and 0.5 and its quantiles at 0.1 / 0.5 / 0.9
  for three small datasets and priors, by a 3-D tensor Gauss-Legendre integration (160 nodes per
  axis, in q0, q1 | q0 and theta) of prior x likelihood; quantiles by Brent's method on that CDF.
* ``p_limit``: two huge test sets (n = 1e9, 1e7), where n -> inf pins p at p-hat; with
  q0 = 1 - p + t J and q1 = p + (1 - t) J (Jacobian 1) the density of theta is the integral over
  J > 0 of the two calibration Betas along that ray (scipy.integrate.quad at 801 theta points, CDF
  by Simpson's rule); the quantiles at 0.025 / 0.5 / 0.975.

Usage (from the repository root; about a minute on one core)::

    .venv/bin/python tests/reference/make_exact_brute_force.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from scipy import integrate, optimize, stats

OUT = Path(__file__).resolve().parent / "exact_brute_force.json"

#: (k, n, k0, m0, k1, m1), prior (theta, q0, q1 Beta parameters, better-than-chance truncation)
SMALL_CASES = [
    ((6, 20, 8, 10, 9, 10), ((1.0, 1.0), (1.0, 1.0), (1.0, 1.0), True)),
    ((6, 20, 8, 10, 9, 10), ((2.0, 5.0), (1.0, 1.0), (1.0, 1.0), False)),
    ((3, 15, 5, 8, 6, 8), ((1.0, 1.0), (2.0, 2.0), (1.0, 1.0), True)),
]
SMALL_CDF_AT = (0.2, 0.5)
SMALL_LEVELS = (0.1, 0.5, 0.9)
#: uniform priors, better than chance
P_LIMIT_CASES = [(400012345, 10**9, 19, 20, 18, 20), (5_200_000, 10**7, 30, 60, 33, 60)]
P_LIMIT_LEVELS = (0.025, 0.5, 0.975)


def brute_force_cdf(counts: tuple, prior: tuple, x: float, size: int = 160) -> float:
    """3-D tensor Gauss-Legendre integration (in q0, q1 | q0 and theta) of the posterior."""
    k, n, k0, m0, k1, m1 = counts
    (at, bt), (a0, b0), (a1, b1), better_than_chance = prior
    nodes, weights = np.polynomial.legendre.leggauss(size)
    u, wu = (nodes + 1) / 2, weights / 2

    def mass(upper: float) -> float:
        q0 = u[:, None, None]
        lower = (1 - q0) if better_than_chance else np.zeros_like(q0)
        q1 = lower + (1 - lower) * u[None, :, None]
        t = upper * u[None, None, :]
        w = wu[:, None, None] * ((1 - lower) * wu[None, :, None]) * (upper * wu[None, None, :])
        p = t * q1 + (1 - t) * (1 - q0)
        dens = (
            stats.beta.pdf(t, at, bt)
            * stats.beta.pdf(q0, a0 + k0, b0 + m0 - k0)
            * stats.beta.pdf(q1, a1 + k1, b1 + m1 - k1)
            * stats.binom.pmf(k, n, p)
        )
        return float(np.sum(w * dens))

    return mass(x) / mass(1.0)


def small_case(counts: tuple, prior: tuple) -> dict:
    cdf = {str(x): brute_force_cdf(counts, prior, x) for x in SMALL_CDF_AT}
    quantiles = {
        str(q): optimize.brentq(
            lambda x, q=q: brute_force_cdf(counts, prior, x) - q, 1e-9, 1 - 1e-9, xtol=1e-10
        )
        for q in SMALL_LEVELS
    }
    return {
        "counts": list(counts),
        "prior": [*prior[:3], prior[3]],
        "cdf": cdf,
        "quantile": quantiles,
    }


def p_limit_quantiles(counts: tuple) -> list[float]:
    """Quantiles of theta in the n -> inf limit (uniform priors)."""
    k, n, k0, m0, k1, m1 = counts
    p_hat = k / n
    g0 = stats.beta(1 + k0, 1 + m0 - k0)
    g1 = stats.beta(1 + k1, 1 + m1 - k1)

    def density(t: float) -> float:
        top = min(p_hat / t if t > 0 else np.inf, (1 - p_hat) / (1 - t) if t < 1 else np.inf)
        return integrate.quad(
            lambda j: g0.pdf(1 - p_hat + t * j) * g1.pdf(p_hat + (1 - t) * j),
            0,
            top,
            epsabs=0,
            epsrel=1e-11,
            limit=400,
        )[0]

    t = np.linspace(0.0, 1.0, 801)
    cdf = integrate.cumulative_simpson(np.array([density(x) for x in t]), x=t, initial=0)
    return np.interp(np.array(P_LIMIT_LEVELS), cdf / cdf[-1], t).tolist()


def main() -> None:
    payload = {
        "small_cases": [small_case(counts, prior) for counts, prior in SMALL_CASES],
        "p_limit": [
            {
                "counts": list(counts),
                "levels": list(P_LIMIT_LEVELS),
                "quantile": p_limit_quantiles(counts),
            }
            for counts in P_LIMIT_CASES
        ],
    }
    OUT.write_text(json.dumps(payload, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
