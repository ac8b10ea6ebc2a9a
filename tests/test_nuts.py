"""Tests of the NUTS machinery (bayes/nuts.py, bayes/binary_nuts.py) and the random design."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from scipy import stats

from judgestats import JudgeData
from judgestats.bayes import binary_nuts
from judgestats.bayes.binary_nuts import compiled_nuts, sample_nuts
from judgestats.bayes.model import DATA_NAMES, LABELLED_CLASS_NAME, build_model
from judgestats.bayes.nuts import CompiledNUTS, NutsCache
from judgestats.bayes.priors import Prior, random_design_prior

SMALL = JudgeData(k=12, n=30, k0=16, m0=20, k1=17, m1=20)
RANDOM = JudgeData(k=40, n=100, k0=7, m0=9, k1=9, m1=11, design="random")
POSTERIOR = {"theta", "q0", "q1", "p", "youden"}


@pytest.fixture(scope="module")
def cache():
    return NutsCache()


def run(data, cache, seed=1, **kwargs):
    options = {
        "draws": 60,
        "tune": 60,
        "chains": 2,
        "rng": np.random.default_rng(seed),
        "compiled": cache,
    } | kwargs
    return sample_nuts(data, None, **options)


# -- build_model: the random design ----------------------------------------------------------------
def _at(model, point, *names):
    """The model's variables ``names`` (free or deterministic) at a point of its value space."""
    outputs = model.replace_rvs_by_values([model[name] for name in names])
    inputs = model.value_vars
    fn = model.compile_fn(outputs, inputs=inputs, point_fn=False, on_unused_input="ignore")
    return [float(v) for v in fn(*(point[v.name] for v in inputs))]


@pytest.mark.slow
@pytest.mark.parametrize("prior", [Prior(), Prior(theta=(2, 3), better_than_chance=False)])
def test_random_design_adds_the_labelled_class_count_and_nothing_else(prior):
    stratified = build_model(JudgeData(**{**RANDOM.to_dict(), "design": "stratified"}), prior)
    random = build_model(RANDOM, prior)
    assert {v.name for v in random.observed_RVs} == {"k", "k0", "k1", LABELLED_CLASS_NAME}
    assert {v.name for v in random.free_RVs} == {v.name for v in stratified.free_RVs}
    assert {v.name for v in random.deterministics} == {v.name for v in stratified.deterministics}
    point = {name: np.asarray(value) + 0.3 for name, value in random.initial_point().items()}
    (theta,) = _at(random, point, "theta")
    extra = stats.binom.logpmf(RANDOM.m1, RANDOM.m0 + RANDOM.m1, theta)
    assert random.compile_logp()(point) == pytest.approx(
        stratified.compile_logp()(point) + extra, rel=1e-12
    )


def test_random_design_accepts_a_one_class_sample():
    """m0 = 0: the calibration binomial of class 0 has no trials and contributes nothing."""
    import pymc as pm

    model = build_model(RANDOM)
    logp = model.compile_logp()
    point = model.initial_point()
    pm.set_data({DATA_NAMES["k0"]: 0, DATA_NAMES["m0"]: 0}, model=model)
    theta, q0 = _at(model, point, "theta", "q0")
    without = logp(point)
    assert np.isfinite(without)
    pm.set_data({DATA_NAMES["k0"]: 0, DATA_NAMES["m0"]: 1}, model=model)
    with_one = logp(point)
    expected = (
        np.log1p(-q0)
        + stats.binom.logpmf(RANDOM.m1, RANDOM.m1 + 1, theta)
        - stats.binom.logpmf(RANDOM.m1, RANDOM.m1, theta)
    )
    assert with_one - without == pytest.approx(expected, rel=1e-9)


def test_random_design_prior_folds_the_class_counts_into_theta():
    prior = random_design_prior(RANDOM, Prior(theta=(2, 3)))
    assert prior.theta == (2 + RANDOM.m1, 3 + RANDOM.m0)
    assert prior.q0 == (1.0, 1.0) and prior.better_than_chance
    with pytest.raises(ValueError, match="design='random'"):
        random_design_prior(SMALL)
    with pytest.raises(TypeError, match="`prior`"):
        random_design_prior(RANDOM, (1, 1))


# -- sample_nuts -----------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("data", [SMALL, RANDOM], ids=["stratified", "random"])
def test_inference_data_groups(data, cache):
    idata = run(data, cache)
    assert set(idata.posterior.data_vars) == POSTERIOR
    assert idata.posterior["theta"].shape == (2, 60)
    observed = {"k", "k0", "k1"} | ({LABELLED_CLASS_NAME} if data.design == "random" else set())
    assert set(idata.observed_data.data_vars) == observed
    assert idata.observed_data["k"].item() == data.k
    assert {idata.constant_data[n].item() for n in ("n", "m0", "m1")} == {data.n, data.m0, data.m1}
    assert idata.sample_stats["diverging"].dtype == bool
    assert idata.sample_stats["diverging"].shape == (2, 60)


@pytest.mark.slow
def test_same_seed_same_draws_and_the_cache_compiles_once():
    cache = NutsCache()
    first = run(SMALL, cache, seed=11)
    again = run(SMALL, cache, seed=11)
    other = run(SMALL, cache, seed=12)
    assert cache.info() == {"hits": 2, "misses": 1, "size": 1}
    np.testing.assert_array_equal(again.posterior["theta"], first.posterior["theta"])
    assert not np.array_equal(other.posterior["theta"], first.posterior["theta"])
    run(RANDOM, cache)  # another design: another compiled model
    assert len(cache) == 2
    cache.clear()
    assert cache.info() == {"hits": 0, "misses": 0, "size": 0}


def test_cores_change_nothing_but_speed(cache):
    one = run(SMALL, cache, seed=5, chains=3, cores=1)
    two = run(SMALL, cache, seed=5, chains=3, cores=2)
    np.testing.assert_array_equal(two.posterior["theta"], one.posterior["theta"])
    np.testing.assert_array_equal(two.sample_stats["diverging"], one.sample_stats["diverging"])


def test_no_process_is_started_unless_asked(monkeypatch, cache):
    import multiprocessing

    def refuse(*args, **kwargs):
        raise AssertionError("a worker process was started")

    monkeypatch.setattr(multiprocessing, "get_context", refuse)
    monkeypatch.setattr(multiprocessing, "Process", refuse)
    idata = run(SMALL, cache, chains=3)  # cores=1 is the default
    assert idata.posterior.sizes["chain"] == 3
    with pytest.raises(AssertionError, match="worker process was started"):
        run(SMALL, cache, chains=2, cores=2)


@pytest.mark.slow
def test_a_user_held_compiled_sampler_is_reused_and_checked():
    engine = compiled_nuts(Prior())
    assert isinstance(engine, CompiledNUTS)
    idata = sample_nuts(
        SMALL, Prior(), draws=20, tune=20, chains=1, rng=np.random.default_rng(0), compiled=engine
    )
    assert idata.posterior.sizes["draw"] == 20
    with pytest.raises(ValueError, match="`compiled` was compiled for"):
        sample_nuts(
            SMALL,
            Prior(theta=(2, 2)),
            draws=20,
            tune=20,
            chains=1,
            rng=np.random.default_rng(0),
            compiled=engine,
        )
    with pytest.raises(ValueError, match="`compiled` was compiled for"):
        sample_nuts(
            RANDOM,
            Prior(),
            draws=20,
            tune=20,
            chains=1,
            rng=np.random.default_rng(0),
            compiled=engine,
        )


@pytest.mark.slow
def test_sampler_failure_is_explained(monkeypatch):
    from pymc.exceptions import SamplingError

    engine = compiled_nuts(Prior())

    def broken(point):
        raise SamplingError("Bad initial energy: inf. The model might be misspecified.")

    monkeypatch.setattr(engine.step, "step", broken)
    with pytest.raises(RuntimeError, match="NUTS failed on chain 0.*Bad initial energy"):
        sample_nuts(
            SMALL, None, draws=10, tune=10, chains=1, rng=np.random.default_rng(1), compiled=engine
        )


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"sampler": "stan"}, ValueError, r"`sampler` \('stan'\) must be 'pymc' or 'nutpie'"),
        ({"cores": 0}, ValueError, r"`cores` \(0\) must be a positive integer"),
        ({"draws": 2.5}, ValueError, r"`draws` \(2.5\) must be a positive integer"),
        ({"chains": True}, TypeError, r"`chains` must be a positive integer, got True"),
        ({"rng": 3}, TypeError, r"`rng` must be a numpy.random.Generator"),
        ({"compiled": {}}, TypeError, r"`compiled` must be a NutsCache"),
    ],
)
def test_argument_errors(kwargs, error, message):
    options = {"draws": 10, "tune": 10, "chains": 1, "rng": np.random.default_rng(0)} | kwargs
    with pytest.raises(error, match=message):
        sample_nuts(SMALL, None, **options)
    with pytest.raises(TypeError, match="`data` must be a JudgeData"):
        sample_nuts(SMALL.to_dict(), None, draws=1, tune=1, chains=1, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="`prior` must be a judgestats.bayes.Prior"):
        sample_nuts(SMALL, (1, 1), draws=1, tune=1, chains=1, rng=np.random.default_rng(0))


# -- nutpie through a stand-in (its wiring; the real sampler: test_nutpie.py) ------------------
def test_nutpie_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "nutpie", None)
    with pytest.raises(ValueError, match="needs the optional package nutpie"):
        sample_nuts(
            SMALL, None, draws=10, tune=10, chains=1, rng=np.random.default_rng(0), sampler="nutpie"
        )


@pytest.mark.slow
@pytest.mark.parametrize("data", [SMALL, RANDOM], ids=["stratified", "random"])
def test_nutpie_wiring(monkeypatch, data):
    import arviz as az

    calls = {}

    class Compiled:
        def __init__(self, model):
            calls["observed"] = {v.name for v in model.observed_RVs}

        def with_data(self, **values):
            calls["data"] = values
            return self

    def sample(model, *, draws, tune, chains, seed, progress_bar, target_accept):
        calls["seed"] = seed
        shape = (chains, draws)
        return az.from_dict(
            posterior={name: np.full(shape, 0.5) for name in (*POSTERIOR, "q1_scaled")},
            sample_stats={"diverging": np.zeros(shape, dtype=bool)},
        )

    fake = types.SimpleNamespace(compile_pymc_model=Compiled, sample=sample)
    monkeypatch.setitem(sys.modules, "nutpie", fake)
    cache = NutsCache()
    for _ in range(2):
        idata = sample_nuts(
            data,
            None,
            draws=7,
            tune=5,
            chains=2,
            rng=np.random.default_rng(0),
            sampler="nutpie",
            compiled=cache,
        )
    assert cache.info()["misses"] == 1 and cache.info()["hits"] == 1
    assert set(idata.posterior.data_vars) == POSTERIOR
    assert idata.posterior["theta"].shape == (2, 7)
    assert idata.observed_data["k"].item() == data.k
    assert "diverging" in idata.sample_stats
    assert calls["data"] == {name: getattr(data, key) for key, name in DATA_NAMES.items()}
    assert (LABELLED_CLASS_NAME in calls["observed"]) == (data.design == "random")
    with pytest.raises(ValueError, match="sampler='nutpie' pass a NutsCache or None"):
        sample_nuts(
            data,
            None,
            draws=7,
            tune=5,
            chains=2,
            rng=np.random.default_rng(0),
            sampler="nutpie",
            compiled=binary_nuts.compiled_nuts(Prior(), design=data.design),
        )
