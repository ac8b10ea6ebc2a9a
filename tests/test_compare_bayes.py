"""Two-model comparison (judgestats.compare), method="bayes": the hierarchical posterior."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _compare_data import labels
from scipy import special

from judgestats import JudgeData, JudgeStatsWarning, compare


# ---------------------------------------------------------------------------------------------
# the hierarchical posterior (small: 2 chains, few draws, fixed seed)
# ---------------------------------------------------------------------------------------------
def _quiet_compare(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # few draws: low ESS is expected
        return compare(*args, **kwargs)


@pytest.fixture(scope="module")
def paired_cache():
    """One compiled paired, model-specific comparison model for the two tests that fit it (a
    compiled sampler re-tunes from its pristine state on every chain, so a warm fit gives a cold
    fit's draws): saves one compilation (~5 s)."""
    from judgestats.bayes.nuts import NutsCache

    return NutsCache()


@pytest.mark.slow
def test_bayes_paired_model_specific_posterior(paired_cache):
    cells, ca, cb = (500, 200, 40, 260), (180, 200, 185, 200), (178, 200, 184, 200)
    a, b = labels(cells, (ca, cb))
    result = _quiet_compare(
        a,
        b,
        method="bayes",
        random_seed=1,
        bayes={"draws": 300, "tune": 300, "chains": 2, "compiled": paired_cache},
    )
    diff = np.asarray(result.idata.posterior["difference"]).reshape(-1)
    assert result.prob_a_better == pytest.approx(np.mean(diff > 0))
    assert result.prob_a_better > 0.99 and result.ci.low > 0
    assert result.ci == pytest.approx(tuple(np.quantile(diff, [0.025, 0.975])))
    delta = compare(a, b)  # large calibration sets: the posterior agrees with the delta method
    assert result.estimate == pytest.approx(delta.estimate, abs=0.02)
    assert set(result.idata.posterior.data_vars) >= {
        "theta",
        "q0",
        "q1",
        "sigma",
        "mu",
        "difference",
        "delta_youden",
    }
    assert result.details["population_sd"]["q0"]["low"] >= 0
    # the NUTS convergence checks are flag keys (thresholds of judgestats.bayes.diagnostics)
    conv = result.details["convergence"]
    expected = [
        key
        for key, bad in (
            ("r_hat", conv["r_hat"] > 1.01),
            ("low_ess", min(conv["ess_bulk"], conv["ess_tail"]) < 400),
            ("divergences", conv["divergences"] > 0),
        )
        if bad
    ]
    assert result.flags == tuple(expected)  # large calibration sets: nothing else to flag


@pytest.mark.slow
def test_bayes_reuses_the_compiled_model_and_swaps_the_counts_in(paired_cache):
    """Refits of one structure compile nothing; new counts are used; a seed fixes the draws."""
    cells, ca, cb = (300, 120, 30, 150), (90, 100, 92, 100), (88, 100, 91, 100)
    a, b = labels(cells, (ca, cb))
    cache = paired_cache
    before = cache.info()  # empty, or holding the model test_bayes_paired_... compiled
    options = {
        "method": "bayes",
        "bayes": {"draws": 300, "tune": 300, "chains": 2, "compiled": cache},
    }
    first = _quiet_compare(a, b, random_seed=3, **options)
    swapped = _quiet_compare(b, a, random_seed=3, **options)  # B only <-> A only, calib swapped
    again = _quiet_compare(a, b, random_seed=3, **options)
    # one compilation in all (by the first fit here if the cache was empty), every other fit a hit
    hits = before["hits"] + before["size"] + 2
    assert cache.info() == {"hits": hits, "misses": 1, "size": 1}
    # exchanging the models mirrors the posterior of theta_A - theta_B (true gap (120-30)/600/J)
    assert swapped.estimate == pytest.approx(-first.estimate, abs=0.02)
    assert swapped.prob_a_better == pytest.approx(1 - first.prob_a_better, abs=0.02)
    np.testing.assert_array_equal(
        np.asarray(again.idata.posterior["difference"]),
        np.asarray(first.idata.posterior["difference"]),
    )


@pytest.mark.slow
def test_bayes_readme_example_has_no_divergences():
    """The README example (model-specific calibration) samples cleanly for any seed.

    The centred and the plain non-centred forms of the hierarchy both diverged here; the
    whitened parametrisation of bayes/compare_model.py does not.
    """
    from judgestats.bayes.nuts import NutsCache

    a = JudgeData(k=420, n=1000, k0=160, m0=200, k1=175, m1=200)
    b = JudgeData(k=380, n=1000, k0=150, m0=200, k1=170, m1=200)
    cache = NutsCache()
    for seed in range(4):
        result = _quiet_compare(
            a,
            b,
            method="bayes",
            random_seed=seed,
            bayes={"draws": 300, "tune": 300, "chains": 4, "compiled": cache},
        )
        assert result.details["convergence"]["divergences"] == 0, seed
        assert "divergences" not in result.flags
        assert result.estimate == pytest.approx(0.088, abs=0.01)  # long-run posterior median


@pytest.mark.slow
def test_bayes_compare_model_is_the_hierarchical_model():
    """The whitened coordinates leave the model unchanged: prior draws of logit q match
    N(mu_loc, mu_scale^2 + sigma^2) marginally (sampled without data: all counts 0)."""
    from judgestats.bayes.compare_model import (
        CompareCounts,
        ComparePrior,
        build_compare_model,
        set_compare_data,
    )
    from judgestats.bayes.nuts import compile_nuts

    prior = ComparePrior(mu_loc=0.5, mu_scale=0.8, sigma_scale=0.7)
    model = build_compare_model(
        cells=None, test=(5, 10, 5, 10), calib_a=(7, 10, 7, 10), calib_b=(6, 10, 8, 10), prior=prior
    )
    engine = compile_nuts(
        model,
        target_accept=0.9,
        output_names=("mu", "sigma", "q0", "theta"),
        set_data=set_compare_data,
    )
    empty = CompareCounts(None, (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0))
    values, _ = engine.run(empty, draws=1500, tune=500, chains=2, rng=np.random.default_rng(0))
    sigma, mu = values["sigma"][..., 0].ravel(), values["mu"][..., 0].ravel()
    logit_q0 = special.logit(values["q0"]).reshape(-1, 2)
    assert np.mean(sigma) == pytest.approx(0.7 * np.sqrt(2 / np.pi), rel=0.1)
    assert np.mean(mu) == pytest.approx(0.5, abs=0.1)
    assert np.std(mu) == pytest.approx(0.8, rel=0.1)
    assert np.std(logit_q0[:, 0] - logit_q0[:, 1]) == pytest.approx(
        np.sqrt(2 * 0.7**2), rel=0.12
    )  # E sigma^2 = s^2 (half-normal)
    assert np.mean(values["theta"]) == pytest.approx(0.5, abs=0.05)


@pytest.mark.slow
def test_bayes_tight_population_recovers_shared_calibration():
    from judgestats.bayes.compare_model import ComparePrior

    a = JudgeData(k=690, n=1000, k0=160, m0=200, k1=180, m1=200)
    b = JudgeData(k=630, n=1000, k0=160, m0=200, k1=180, m1=200)
    result = _quiet_compare(
        a,
        b,
        calibration="shared",
        method="bayes",
        random_seed=2,
        bayes={"draws": 300, "tune": 300, "chains": 2, "prior": ComparePrior(sigma_scale=0.005)},
    )
    post = result.idata.posterior
    gap = np.abs(np.asarray(post["q0"].sel(model="A") - post["q0"].sel(model="B")))
    assert np.quantile(gap, 0.95) < 0.01  # sigma -> 0: one judge for both models
    assert result.estimate == pytest.approx(0.06 / 0.7, abs=0.015)  # (p_A - p_B) / J
    assert "instability_unchecked" in result.flags


def test_compare_prior_validates():
    from judgestats.bayes.compare_model import ComparePrior

    with pytest.raises(ValueError, match=r"`sigma_scale` \(0\) must be a finite number"):
        ComparePrior(sigma_scale=0)
    with pytest.raises(ValueError, match="`theta`"):
        ComparePrior(theta=(1, -1))
