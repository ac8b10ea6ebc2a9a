"""nutpie as the NUTS sampler, for real (the optional package is in the test extra).

The stand-in tests in test_nuts.py check the wiring without nutpie; these run it. The
reference is the exact posterior (quadrature engine, no sampling), so agreement is checked
against an independent computation at the Monte Carlo error of the draws.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from judgestats import JudgeData, JudgeStatsWarning
from judgestats.bayes.binary_posterior import posterior
from judgestats.bayes.nuts import NutsCache

pytest.importorskip("nutpie")
pytestmark = pytest.mark.slow

#: A moderate judge, small arms, random design (theta also informed by m1 / (m0 + m1)).
DATA = [
    JudgeData(k=55, n=120, k0=33, m0=40, k1=31, m1=40),
    JudgeData(k=300, n=1000, k0=45, m0=50, k1=18, m1=20, design="random"),
]


def nutpie_fit(data: JudgeData, seed: int, cache: NutsCache | None = None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        return posterior(
            data,
            method="nuts",
            sampler="nutpie",
            draws=1000,
            tune=1000,
            chains=4,
            random_seed=seed,
            compiled=cache,
        )


@pytest.fixture(scope="module")
def cache(nutpie_cache) -> NutsCache:
    """The session's nutpie cache (tests/conftest.py): test_bayes_model.py compiled the stratified
    model already; a warm fit gives a cold fit's draws (the warm-refit test below)."""
    return nutpie_cache


@pytest.mark.parametrize("data", DATA, ids=["stratified", "random"])
def test_nutpie_agrees_with_the_exact_posterior(data, cache):
    """Mean and 5%/95% quantiles of theta within 4 Monte Carlo SEs of the exact engine's."""
    exact = posterior(data)
    post = nutpie_fit(data, seed=5, cache=cache)
    assert not post.flags
    draws = post.draws("theta").ravel()
    ess = float(post.diagnostics["ess_bulk"])
    assert ess > 400
    sd = exact.sd()
    assert abs(draws.mean() - exact.mean()) < 4 * sd / np.sqrt(ess)
    for q in (0.05, 0.95):
        x = exact.quantile(q)
        # SE of an empirical quantile: sqrt(q (1 - q) / ess) / density at the quantile
        se = np.sqrt(q * (1 - q) / ess) / exact.pdf(x)
        assert abs(np.quantile(draws, q) - x) < 4 * se


def test_nutpie_warm_refit_reuses_the_compiled_model_and_keeps_results(cache):
    """A refit through the cache compiles nothing and gives the draws a cold fit gives."""
    data = DATA[0]
    cold = nutpie_fit(data, seed=9)
    nutpie_fit(data, seed=9, cache=cache)
    misses = cache.info()["misses"]
    warm = nutpie_fit(data, seed=9, cache=cache)
    assert cache.info()["misses"] == misses
    np.testing.assert_array_equal(warm.draws("theta"), cold.draws("theta"))
    other = nutpie_fit(data, seed=10, cache=cache)
    assert not np.array_equal(other.draws("theta"), cold.draws("theta"))
