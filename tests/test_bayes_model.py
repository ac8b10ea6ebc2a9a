"""Tests of the PyMC model (bayes/model.py) and the Posterior result (bayes/binary_posterior.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from scipy import integrate, special, stats

from judgestats import JudgeData, JudgeStatsWarning
from judgestats.bayes.binary_posterior import Posterior, posterior
from judgestats.bayes.model import DATA_NAMES, build_model, set_counts
from judgestats.bayes.nuts import NutsCache
from judgestats.bayes.priors import Prior
from judgestats.results import ConfidenceInterval

SMALL = JudgeData(k=12, n=30, k0=16, m0=20, k1=17, m1=20)
EXAMPLE = JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)


#: One compiled model (stratified design, default Prior and target_accept) for every NUTS fit of
#: this module but ``small_nuts``: a compiled sampler re-tunes from its pristine state on every
#: chain, so a warm fit gives a cold fit's draws (test_same_seed_same_draws checks it against the
#: cold ``small_nuts``; test_nuts.py checks the cache itself): 2 compilations here instead of 10.
CACHE = NutsCache()


def fit(data, **kwargs):
    """Fit with NUTS, JudgeStatsWarning silenced (convergence flags are asserted separately)."""
    kwargs.setdefault("method", "nuts")
    kwargs.setdefault("compiled", CACHE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        return posterior(data, **kwargs)


@pytest.fixture(scope="module")
def small_nuts():
    return fit(SMALL, draws=1000, tune=500, chains=2, random_seed=11, compiled=None)  # cold


# -- the model -------------------------------------------------------------------------------------
def test_model_variables_truncated():
    """With the truncation the model samples (p, u0, u1) (build_model's Notes)."""
    model = build_model(SMALL)
    assert {v.name for v in model.free_RVs} == {"p", "q0_scaled", "q1_scaled"}
    assert {v.name for v in model.deterministics} == {"theta", "q0", "q1", "youden"}
    assert {v.name for v in model.observed_RVs} == {"k", "k0", "k1"}
    assert set(model.data_vars and [v.name for v in model.data_vars]) == set(DATA_NAMES.values())
    assert [p.name for p in model.potentials] == ["prior"]


def test_model_variables_untruncated():
    model = build_model(SMALL, Prior(better_than_chance=False))
    assert {v.name for v in model.free_RVs} == {"theta", "q0", "q1"}
    assert {v.name for v in model.deterministics} == {"p", "youden"}
    assert not model.potentials


def test_set_counts_swaps_data():
    model = build_model(SMALL)
    set_counts(model, EXAMPLE)
    assert int(model["k_data"].get_value()) == 400
    assert int(model["m1"].get_value()) == 200


FREE = ("p", "q0_scaled", "q1_scaled")


def test_deterministics_match_definition():
    model = build_model(SMALL)
    inputs = [model.rvs_to_values[model[name]] for name in FREE]
    names = ("theta", "q0", "q1", "youden")
    outputs = model.replace_rvs_by_values([model[name] for name in names])
    fn = model.compile_fn(outputs, inputs=inputs, point_fn=False)
    theta, q0, q1, youden = fn(0.3, 1.1, -0.4)
    p, u0, u1 = special.expit([0.3, 1.1, -0.4])
    assert q0 == pytest.approx(1 - p + p * u0)
    assert q1 == pytest.approx(p + (1 - p) * u1)
    assert youden == pytest.approx(q0 + q1 - 1)
    assert p == pytest.approx(theta * q1 + (1 - theta) * (1 - q0))  # theta solves the model's p
    assert 0 < theta < 1 and youden > 0


PRIOR = Prior(theta=(2.0, 3.0), q0=(3.0, 2.0), q1=(4.0, 1.5))


def _prior_logp_fn(prior):
    """Density of the model's prior on (p, u0, u1) in the constrained space (no logit Jacobian)."""
    model = build_model(SMALL, prior)
    logp = model.logp(vars=[*(model[name] for name in FREE), *model.potentials], jacobian=False)
    fn = model.compile_fn(
        logp, inputs=[model.rvs_to_values[model[name]] for name in FREE], point_fn=False
    )
    return lambda p, u0, u1: float(fn(*special.logit([p, u0, u1])))


def test_truncated_prior_equals_truncated_product():
    """log pi(theta, q0, q1) = log Beta(theta) + log Beta(q0) + log Beta(q1) on q0 + q1 > 1
    after the change of variables (p, u0, u1) -> (theta, q0, q1), Jacobian p (1 - p) / J."""
    fn = _prior_logp_fn(PRIOR)
    rng = np.random.default_rng(0)
    for theta, q0, q1 in rng.uniform(0.02, 0.98, size=(40, 3)):
        if q0 + q1 <= 1:
            continue
        p = theta * q1 + (1 - theta) * (1 - q0)
        u0, u1, youden = (q0 - 1 + p) / p, (q1 - p) / (1 - p), q0 + q1 - 1
        density = fn(p, u0, u1) - np.log(p * (1 - p) / youden)
        expected = (
            stats.beta.logpdf(theta, *PRIOR.theta)
            + stats.beta.logpdf(q0, *PRIOR.q0)
            + stats.beta.logpdf(q1, *PRIOR.q1)
        )
        assert density == pytest.approx(expected, rel=1e-6, abs=1e-6)


def test_truncated_prior_mass_is_truncation_probability():
    """The density on (p, u0, u1) integrates to P(q0 + q1 > 1) under the untruncated product
    (Monte Carlo over the unit cube: the change of variables covers the triangle exactly once)."""
    fn = _prior_logp_fn(PRIOR)
    rng = np.random.default_rng(1)
    cube = rng.uniform(size=(20000, 3))
    values = np.exp([fn(*point) for point in cube])
    expected, _ = integrate.quad(
        lambda q0: stats.beta.pdf(q0, *PRIOR.q0) * stats.beta.sf(1 - q0, *PRIOR.q1), 0, 1
    )
    se = values.std() / np.sqrt(values.size)
    assert abs(values.mean() - expected) < 4 * se


# -- NUTS against an independent reference -----------------------------------------------------
def _grid_theta_quantiles(data, levels, size=240):
    """Brute-force posterior quantiles of theta (uniform priors, q0 + q1 > 1) on a midpoint grid."""
    grid = (np.arange(size) + 0.5) / size
    q0, q1 = np.meshgrid(grid, grid, indexing="ij")
    inside = q0 + q1 > 1
    log_calib = stats.binom.logpmf(data.k0, data.m0, q0) + stats.binom.logpmf(data.k1, data.m1, q1)
    log_calib = np.where(inside, log_calib, -np.inf)
    theta = (np.arange(2 * size) + 0.5) / (2 * size)
    log_marginal = np.empty(theta.size)
    for i, t in enumerate(theta):
        p = t * q1 + (1 - t) * (1 - q0)
        log_marginal[i] = special.logsumexp(log_calib + stats.binom.logpmf(data.k, data.n, p))
    weight = np.exp(log_marginal - log_marginal.max())
    cdf = np.concatenate([[0.0], np.cumsum(weight) / weight.sum()])
    edges = np.concatenate([[0.0], theta + 0.5 / theta.size])
    return np.interp(levels, cdf, edges)


LEVELS = np.array([0.05, 0.5, 0.95])


@pytest.fixture(scope="module")
def grid_quantiles():
    return _grid_theta_quantiles(SMALL, LEVELS)


@pytest.mark.slow
def test_nuts_matches_grid_quadrature(small_nuts, grid_quantiles):
    import arviz as az

    assert small_nuts.diagnostics["divergences"] == 0
    for level, reference in zip(LEVELS, grid_quantiles, strict=True):
        mcse = float(
            az.mcse(small_nuts.idata, var_names=["theta"], method="quantile", prob=level)["theta"]
        )
        estimate = small_nuts.quantile(level)
        assert abs(estimate - reference) < 4 * mcse + 2e-3, (level, estimate, reference, mcse)


def test_exact_method_matches_grid_quadrature(grid_quantiles):
    exact = posterior(SMALL, method="exact", draws=500, chains=2, random_seed=3)
    np.testing.assert_allclose(exact.quantile(LEVELS), grid_quantiles, atol=3e-3)
    assert exact.idata.posterior.sizes["chain"] == 2
    assert exact.idata.posterior.sizes["draw"] == 500
    assert exact.ci(0.9, "hdi") == ConfidenceInterval(*exact.engine.interval(0.9, "hdi"))
    assert not exact.flags


@pytest.mark.slow
def test_nearly_known_judge_gives_beta_posterior():
    data = JudgeData(k=30, n=100, k0=100000, m0=100000, k1=100000, m1=100000)
    post = fit(data, draws=1000, tune=500, chains=2, random_seed=5)
    reference = stats.beta(data.k + 1, data.n - data.k + 1)
    draws = post.draws("theta")
    assert post.mean() == pytest.approx(reference.mean(), abs=0.01)
    assert draws.std() == pytest.approx(reference.std(), rel=0.1)
    assert post.quantile(0.9) == pytest.approx(reference.ppf(0.9), abs=0.015)


# -- reproducibility and the compilation cache -----------------------------------------------
@pytest.mark.slow
def test_same_seed_same_draws(small_nuts):
    again = fit(SMALL, draws=1000, tune=500, chains=2, random_seed=11)
    np.testing.assert_array_equal(again.draws("theta"), small_nuts.draws("theta"))
    other = fit(SMALL, draws=1000, tune=500, chains=2, random_seed=12)
    assert not np.array_equal(other.draws("theta"), small_nuts.draws("theta"))


@pytest.mark.slow
def test_parallel_chains_give_the_same_draws(small_nuts):
    """Each chain has its own seed and pristine step state: cores changes nothing but speed."""
    one = fit(SMALL, draws=1000, tune=500, chains=2, random_seed=11, cores=1)
    two = fit(SMALL, draws=1000, tune=500, chains=2, random_seed=11, cores=2)
    np.testing.assert_array_equal(one.draws("theta"), small_nuts.draws("theta"))
    np.testing.assert_array_equal(two.draws("theta"), one.draws("theta"))
    np.testing.assert_array_equal(
        two.idata.sample_stats["diverging"], one.idata.sample_stats["diverging"]
    )
    with pytest.raises(ValueError, match=r"`cores` \(0\) must be a positive integer"):
        posterior(SMALL, cores=0)


@pytest.mark.slow
def test_generator_seed_is_accepted():
    a = fit(EXAMPLE, draws=100, tune=100, chains=1, random_seed=np.random.default_rng(4))
    b = fit(EXAMPLE, draws=100, tune=100, chains=1, random_seed=np.random.default_rng(4))
    np.testing.assert_array_equal(a.draws("q0"), b.draws("q0"))


@pytest.mark.slow
def test_refit_with_new_counts_uses_new_counts(small_nuts):
    post = fit(EXAMPLE, draws=300, tune=300, chains=1, random_seed=2)
    assert post.mean("q0") == pytest.approx(0.7, abs=0.03)
    assert post.idata.observed_data["k"].item() == 400


# -- the result object -----------------------------------------------------------------------
@pytest.mark.slow
def test_result_api(small_nuts):
    post = small_nuts
    assert set(post.idata.posterior.data_vars) == {"theta", "q0", "q1", "p", "youden"}
    assert {"diverging", "energy", "tree_depth"} <= set(post.idata.sample_stats.data_vars)
    eti, hdi = post.ci(), post.ci(0.9, "hdi")
    assert isinstance(eti, ConfidenceInterval) and eti.low < post.mean() < eti.high
    assert hdi.high - hdi.low < eti.high - eti.low
    np.testing.assert_allclose(post.quantile([0.025, 0.975]), eti)
    assert np.all(post.draws("youden") > 0)  # better than chance
    summary = post.summary()
    assert {"mean", "sd", "ess_bulk", "ess_tail", "r_hat", "hdi_low"} <= set(summary.columns)
    assert list(summary.index) == ["theta", "q0", "q1", "youden", "p"]
    json.dumps(post.to_dict())
    ppc = post.posterior_predictive_check()
    assert list(ppc.index) == ["k", "k0", "k1"]
    assert ppc.loc["k", "observed"] == SMALL.k
    assert (ppc["p_value"] > 0.05).all()  # two-sided: no conflict in these counts


@pytest.mark.slow
def test_plot_returns_axes(small_nuts):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = small_nuts.plot()
    assert ax.get_xlabel() == "true accuracy theta"
    plt.close(ax.figure)


def test_mock_sample_wiring():
    from pymc.testing import mock_sample

    model = build_model(EXAMPLE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # potentials are ignored by prior draws
        idata = mock_sample(
            draws=200,
            model=model,
            random_seed=1,
            var_names=["theta", "q0", "q1", "p", "youden"],
            sample_stats={"diverging": lambda size: np.ones(size, dtype=bool)},
        )
    with pytest.warns(JudgeStatsWarning):
        post = Posterior.from_idata(idata, data=EXAMPLE, method="nuts")
    assert "divergences" in post.flags
    assert post.diagnostics["divergences"] == 200
    assert 0 < post.mean() < 1
    json.dumps(post.to_dict())


@pytest.mark.slow
def test_unconverged_run_warns_and_flags():
    with pytest.warns(JudgeStatsWarning):
        post = posterior(
            SMALL, method="nuts", draws=30, tune=30, chains=2, random_seed=1, compiled=CACHE
        )
    assert "low_ess" in post.flags
    assert "low_ess" in post.to_dict()["flags"]


# -- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"method": "foo"}, ValueError, r"`method` \('foo'\) must be one of 'exact', 'nuts'"),
        ({"sampler": "stan"}, ValueError, r"`sampler` \('stan'\) must be one of 'pymc', 'nutpie'"),
        ({"draws": 0}, ValueError, r"`draws` \(0\) must be a positive integer"),
        ({"tune": 2.5}, ValueError, r"`tune` \(2.5\) must be a positive integer"),
        ({"chains": True}, TypeError, r"`chains` must be a positive integer, got True"),
        (
            {"target_accept": 1.0},
            ValueError,
            r"`target_accept` \(1\) must lie strictly between 0 and 1",
        ),
    ],
)
def test_posterior_argument_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        posterior(SMALL, **kwargs)


def test_type_errors():
    with pytest.raises(TypeError, match="`data` must be a JudgeData"):
        posterior((1, 2, 3, 4, 5, 6))
    with pytest.raises(TypeError, match="`prior` must be"):
        posterior(SMALL, prior={"theta": (1, 1)})
    with pytest.raises(TypeError, match="`random_seed`"):
        posterior(SMALL, random_seed="seed")


@pytest.mark.slow
def test_result_argument_errors(small_nuts):
    with pytest.raises(ValueError, match=r"`kind` \('wide'\) must be one of 'eti', 'hdi'"):
        small_nuts.ci(kind="wide")
    with pytest.raises(ValueError, match=r"`prob` \(1.5\) must lie strictly between 0 and 1"):
        small_nuts.ci(1.5)
    with pytest.raises(ValueError, match=r"`var` \('x'\) must be"):
        small_nuts.mean("x")
    with pytest.raises(ValueError, match=r"`q` .* must lie strictly between 0 and 1"):
        small_nuts.quantile(1.2)


def test_nutpie_missing_is_a_clear_error(nutpie_cache):
    pytest.importorskip("pytest")
    try:
        import nutpie  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="needs the optional package nutpie"):
            posterior(SMALL, method="nuts", sampler="nutpie")
    else:  # pragma: no cover - only where nutpie is installed
        # the session's nutpie cache: test_nutpie.py samples this model again
        post = fit(
            SMALL,
            sampler="nutpie",
            draws=500,
            tune=500,
            chains=2,
            random_seed=1,
            compiled=nutpie_cache,
        )
        assert set(post.idata.posterior.data_vars) == {"theta", "q0", "q1", "p", "youden"}


def test_import_stays_light():
    code = (
        "import sys, judgestats, judgestats.bayes.binary_posterior, judgestats.bayes.model; "
        "heavy = {'pymc', 'pytensor', 'arviz', 'matplotlib'} & set(sys.modules); "
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
