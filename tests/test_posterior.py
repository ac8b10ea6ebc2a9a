"""The Posterior result: default engine, lazy InferenceData, summaries of every variable, flags."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy import stats

import judgestats as jc
from judgestats.bayes.binary_posterior import DIAGNOSTIC_FLAGS, VARIABLES, DrawsEngine, posterior
from judgestats.bayes.diagnostics import predictive_p_values
from judgestats.bayes.exact import ExactPosterior
from judgestats.bayes.priors import Prior

README = jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)


def quiet(data, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        return posterior(data, **kwargs)


@pytest.fixture(scope="module")
def readme():
    return posterior(README, random_seed=1)


@pytest.mark.slow
def test_default_is_the_exact_engine_and_idata_is_lazy(readme):
    assert readme.method == "exact"
    assert isinstance(readme.engine, ExactPosterior)
    fresh = posterior(README, random_seed=1)
    assert "idata" not in fresh.__dict__  # not built by posterior()
    idata = fresh.idata
    assert "idata" in fresh.__dict__ and fresh.idata is idata
    assert set(idata.posterior.data_vars) == set(VARIABLES)
    assert idata.posterior.sizes == {"chain": 4, "draw": 1000}


def test_q0_summary_is_not_a_node_value(readme):
    # independent value quoted with the issue (JAGS / importance sampling): median of q0 0.6971
    assert readme.quantile(0.5, "q0") == pytest.approx(0.6971, abs=1e-4)
    draws = readme.draws("q0")
    assert np.unique(draws).size == draws.size  # continuous draws, not a dozen node values
    eti, hdi = readme.ci(0.95, "eti", "q0"), readme.ci(0.95, "hdi", "q0")
    assert hdi.low != eti.low and hdi.high != eti.high
    assert hdi.high - hdi.low < eti.high - eti.low
    assert readme.pdf(hdi.low, "q0") == pytest.approx(readme.pdf(hdi.high, "q0"), rel=1e-3)


@pytest.mark.parametrize("var", VARIABLES)
def test_draws_follow_the_exact_marginals(readme, var):
    draws = readme.draws(var)
    levels = np.array([0.1, 0.5, 0.9])
    exact = readme.quantile(levels, var)
    se = np.sqrt(levels * (1 - levels) / draws.size) / readme.pdf(exact, var)
    assert np.all(np.abs(np.quantile(draws, levels) - exact) < 5 * se)
    # and the joint structure: q0, q1, p and J are the functions of theta, p, J they should be
    post = readme.idata.posterior
    np.testing.assert_allclose(post["youden"], post["q0"] + post["q1"] - 1, atol=1e-12)
    np.testing.assert_allclose(
        post["p"], post["theta"] * post["q1"] + (1 - post["theta"]) * (1 - post["q0"]), atol=1e-12
    )


@pytest.mark.slow
def test_same_seed_same_draws_other_seed_other_draws():
    a = posterior(README, random_seed=5).draws("theta")
    b = posterior(README, random_seed=np.random.default_rng(5)).draws("theta")
    c = posterior(README, random_seed=6).draws("theta")
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_summary_and_to_dict_cover_every_variable(readme):
    frame = readme.summary()
    assert list(frame.index) == list(VARIABLES)
    assert {"mean", "sd", "median", "hdi_low", "hdi_high"} <= set(frame.columns)
    payload = json.loads(json.dumps(readme.to_dict()))
    assert set(payload["variables"]) == set(VARIABLES)
    assert payload["flags"] == {}
    assert payload["diagnostics"]["prob_weak"] == pytest.approx(0.0, abs=1e-9)
    assert readme.posterior_predictive_check()["p_value"].min() > 0.5


@pytest.mark.slow
def test_posterior_predictive_p_values_from_draws_match_the_exact_engine():
    data = jc.JudgeData(k=300, n=1000, k0=55, m0=100, k1=52, m1=100)
    exact = ExactPosterior(data)
    draws = DrawsEngine(exact.sample(40_000, random_seed=3))
    p_exact = predictive_p_values(data, exact.expect)
    p_draws = predictive_p_values(data, draws.expect)
    for name in ("k", "k0", "k1"):
        assert p_draws[name] == pytest.approx(p_exact[name], abs=0.01)
    assert draws.prob_youden_below(0.2) == pytest.approx(exact.prob_youden_below(0.2), abs=0.01)


def test_draws_engine_hdi_is_the_shortest_window_of_the_draws():
    values = np.random.default_rng(0).beta(2, 8, 5000)
    engine = DrawsEngine({var: values for var in VARIABLES})
    low, high = engine.interval(0.9, "hdi")
    ordered = np.sort(values)
    size = int(np.ceil(0.9 * values.size))
    shortest = np.min(ordered[size - 1 :] - ordered[: values.size - size + 1])
    assert high - low == pytest.approx(shortest)
    assert np.mean((values >= low) & (values <= high)) >= 0.9


# -- flags -------------------------------------------------------------------------------------
def test_calibration_worse_than_chance_is_flagged():
    data = jc.JudgeData(k=300, n=1000, k0=30, m0=100, k1=40, m1=100)
    with pytest.warns(jc.JudgeStatsWarning, match="calibration_contradicts_prior"):
        post = posterior(data)
    assert "calibration_contradicts_prior" in post.flags
    # P(q0 + q1 > 1) under Beta(31, 71) x Beta(41, 61): q0 + q1 ~ N(0.706, 0.064^2) -> ~0
    assert post.diagnostics["prob_better_than_chance"] < 1e-4
    untruncated = quiet(data, prior=Prior(better_than_chance=False))
    assert "calibration_contradicts_prior" not in untruncated.flags


def test_a_test_rate_the_calibration_cannot_produce_is_flagged():
    data = jc.JudgeData(k=300, n=1000, k0=55, m0=100, k1=52, m1=100)  # p-hat < 1 - q0-hat
    with pytest.warns(jc.JudgeStatsWarning, match="test_calibration_conflict"):
        post = posterior(data)
    assert "test_calibration_conflict" in post.flags
    assert post.diagnostics["p_value_k0"] < 0.05


def test_weak_judge_is_judged_by_the_posterior_of_j():
    weak = quiet(jc.JudgeData(k=5200, n=10000, k0=30, m0=60, k1=33, m1=60))
    assert "weak_judge" in weak.flags
    assert weak.diagnostics["prob_weak"] == pytest.approx(float(weak.cdf(0.2, "youden")), abs=1e-4)
    strong = posterior(jc.JudgeData(k=10**12 // 2, n=10**12, k0=160, m0=200, k1=160, m1=200))
    assert strong.flags == ()


def test_one_class_random_sample_is_accepted_and_flagged():
    data = jc.JudgeData(k=27, n=30, k0=0, m0=0, k1=28, m1=29, design="random")
    with pytest.warns(jc.JudgeStatsWarning, match="one_class_labelled"):
        post = posterior(data)
    assert "one_class_labelled" in post.flags
    low, high = post.ci()
    assert 0.0 < low < high < 1.0


def test_every_flag_has_a_message_that_names_an_interval():
    for key, message in DIAGNOSTIC_FLAGS.items():
        assert "interval" in message, key


# -- the random design --------------------------------------------------------------------------
def test_random_design_is_the_stratified_posterior_with_the_class_counts_in_the_theta_prior():
    random = jc.JudgeData(k=300, n=700, k0=60, m0=70, k1=25, m1=30, design="random")
    stratified = jc.JudgeData(k=300, n=700, k0=60, m0=70, k1=25, m1=30)
    # theta^m1 (1 - theta)^m0 from the labelled class count: Beta(1 + 30, 1 + 70) prior
    reference = ExactPosterior(stratified, Prior(theta=(31.0, 71.0)))
    post = posterior(random)
    np.testing.assert_allclose(
        post.quantile([0.025, 0.5, 0.975]), reference.quantile([0.025, 0.5, 0.975]), atol=1e-10
    )


# -- the shortest interval -------------------------------------------------------------------
@pytest.mark.parametrize(
    "data",
    [
        jc.JudgeData(k=30, n=400, k0=40, m0=50, k1=45, m1=50),
        jc.JudgeData(k=2, n=200, k0=90, m0=100, k1=80, m1=100),
        jc.JudgeData(k=190, n=200, k0=9, m0=10, k1=10, m1=10),
    ],
)
def test_hdi_is_the_shortest_interval_under_a_jeffreys_prior(data):
    post = quiet(data, prior=Prior(theta=(0.5, 0.5)))
    low, high = post.ci(0.95, "hdi")
    assert float(post.cdf(high) - post.cdf(low)) == pytest.approx(0.95, abs=1e-7)
    # brute force: the narrowest of 4001 windows Q(a + 0.95) - Q(a)
    a = np.linspace(1e-9, 0.05 - 1e-9, 4001)
    widths = post.quantile(a + 0.95) - post.quantile(a)
    assert high - low <= widths.min() + 1e-7


# -- errors ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"method": "mcmc"}, ValueError, r"`method` \('mcmc'\)"),
        ({"draws": 0}, ValueError, r"`draws` \(0\)"),
        ({"draws": 2.5}, ValueError, r"`draws` \(2\.5\)"),
        ({"chains": True}, TypeError, r"`chains` must be a positive integer"),
        ({"cores": 0}, ValueError, r"`cores` \(0\)"),
        ({"target_accept": 1.0}, ValueError, "`target_accept`"),
        ({"prior": (1, 1)}, TypeError, "`prior`"),
    ],
)
def test_argument_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        posterior(README, **kwargs)


def test_result_argument_errors(readme):
    with pytest.raises(ValueError, match="`var`"):
        readme.quantile(0.5, var="kappa")
    with pytest.raises(ValueError, match="`q`"):
        readme.quantile(1.0)
    with pytest.raises(ValueError, match="`kind`"):
        readme.ci(kind="widest")
    with pytest.raises(TypeError, match="`data` must be a JudgeData"):
        posterior((400, 1000, 140, 200, 180, 200))


def test_exact_posterior_of_a_known_judge_is_the_conjugate_beta():
    # q0, q1 known to ~1e-4 and equal to 1: p = theta, so theta | k ~ Beta(k + 1, n - k + 1)
    big = 10**8
    post = posterior(jc.JudgeData(k=30, n=100, k0=big, m0=big, k1=big, m1=big))
    levels = np.array([0.025, 0.5, 0.975])
    np.testing.assert_allclose(post.quantile(levels), stats.beta.ppf(levels, 31, 71), atol=1e-4)


# -- the result contract ------------------------------------------------------------------------
def test_posterior_is_a_result_and_its_flags_are_registered(readme, capsys):
    from judgestats.results import FLAG_MESSAGES, Result

    assert isinstance(readme, Result) and readme.flags == ()
    assert set(DIAGNOSTIC_FLAGS) <= set(FLAG_MESSAGES)
    capsys.readouterr()
    frame = readme.summary()
    assert capsys.readouterr() == ("", "")
    assert list(frame.index) == list(VARIABLES)
    data = jc.JudgeData(k=27, n=30, k0=0, m0=0, k1=28, m1=29, design="random")
    flagged = quiet(data)
    assert flagged.flags == ("one_class_labelled",)
    # the posterior keeps its own sentence for a key the catalogue shares with the estimate
    assert flagged.flag_messages == [DIAGNOSTIC_FLAGS["one_class_labelled"]]
    assert json.loads(json.dumps(flagged.to_dict()))["flags"] == {
        "one_class_labelled": DIAGNOSTIC_FLAGS["one_class_labelled"]
    }


def test_printed_posterior_rows_are_its_medians_and_intervals(readme):
    lines = str(readme).splitlines()
    assert lines[0] == "judgestats posterior (method exact, 95% credible intervals)"
    assert "400 of 1000" in lines[1] and "140/200" in lines[1] and "180/200" in lines[1]
    assert lines[2].split() == ["median", "ETI", "low", "ETI", "high", "HDI", "low", "HDI", "high"]
    for line, var in zip(lines[3:], ("theta", "q0", "q1"), strict=True):
        eti, hdi = readme.ci(0.95, "eti", var), readme.ci(0.95, "hdi", var)
        values = (readme.quantile(0.5, var), *eti, *hdi)
        assert line.split() == [var, *(f"{v:.4f}" for v in values)]
    assert len(lines) == 6  # no flags, no warning lines
    data = jc.JudgeData(k=300, n=1000, k0=30, m0=100, k1=40, m1=100)
    flagged = quiet(data)
    warnings_printed = [line for line in str(flagged).splitlines() if "warning" in line]
    assert [line.split(")")[0] for line in warnings_printed] == [
        f"  warning ({flag}" for flag in flagged.flags
    ]
    assert "calibration_contradicts_prior" in flagged.flags
    assert "Posterior(method='exact'" in repr(readme)  # repr stays the precise one


def test_posterior_plot_returns_the_axes(readme):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    assert readme.plot(ax=ax) is ax and ax.get_xlabel() == "true accuracy theta"
    plt.close("all")
