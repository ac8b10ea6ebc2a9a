r"""The PyMC model of judgecal: the single definition of the Bayesian model.

.. math::
    \theta \sim \mathrm{Beta}(a_\theta, b_\theta), \quad
    q_0 \sim \mathrm{Beta}(a_0, b_0), \quad q_1 \sim \mathrm{Beta}(a_1, b_1), \\
    p = \theta q_1 + (1 - \theta)(1 - q_0), \\
    k \sim \mathrm{Bin}(n, p), \quad k_0 \sim \mathrm{Bin}(m_0, q_0), \quad
    k_1 \sim \mathrm{Bin}(m_1, q_1).

With ``Prior(better_than_chance=True)`` the prior of (q0, q1) is truncated to q0 + q1 > 1. The
truncation is a smooth reparametrisation, not a ``-inf`` wall (see :func:`build_model`), so NUTS
never meets a hard boundary.

Compiling the model's log density and gradient dominates the cost of a fit. :func:`compiled_nuts`
keeps one compiled model and NUTS step per (prior, target_accept); a later fit swaps the counts in
with :func:`set_counts` (``pm.set_data``) and reuses everything. The machinery is generic:
:func:`compile_nuts` compiles any model whose data live in ``pm.Data`` containers, given a
``set_data`` hook that swaps new data in, and :func:`cached_nuts` keeps such engines per key (the
random-design and two-model comparison models use it). pymc and pytensor are imported inside the
functions, never at module import.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from judgecal.bayes.priors import Prior
from judgecal.data import JudgeData

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

__all__ = [
    "DATA_NAMES",
    "OBSERVED_NAMES",
    "POSTERIOR_NAMES",
    "CompiledNUTS",
    "build_model",
    "cache_info",
    "cached_nuts",
    "clear_cache",
    "compile_nuts",
    "compiled_nuts",
    "nuts_step",
    "set_counts",
]

#: Name of the ``pm.Data`` container that holds each count of :class:`JudgeData`.
DATA_NAMES = {"k": "k_data", "n": "n", "k0": "k0_data", "m0": "m0", "k1": "k1_data", "m1": "m1"}
#: Observed random variables (binomial likelihoods), named after the counts they model.
OBSERVED_NAMES = ("k", "k0", "k1")
#: Variables reported in the posterior: the three parameters and two deterministics.
POSTERIOR_NAMES = ("theta", "q0", "q1", "p", "youden")


def _check_inputs(data: Any, prior: Any) -> Prior:
    if not isinstance(data, JudgeData):
        raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
    if prior is None:
        return Prior()
    if not isinstance(prior, Prior):
        raise TypeError(f"`prior` must be a judgecal.bayes.Prior or None, got "
                        f"{type(prior).__name__}.")
    return prior


def build_model(data: JudgeData, prior: Prior | None = None) -> pm.Model:
    r"""Build the PyMC model of the true accuracy theta and the judge's q0, q1.

    Parameters
    ----------
    data : JudgeData
        The six counts; they enter through ``pm.Data`` containers named in :data:`DATA_NAMES`, so
        ``pm.set_data`` (or :func:`set_counts`) swaps in new counts without rebuilding.
    prior : Prior, optional
        Beta priors; ``Prior()`` (uniform, better than chance) by default.

    Returns
    -------
    pymc.Model
        Variables ``theta``, ``q0``, ``q1`` (parameters), ``p`` (judged-correct rate) and
        ``youden`` (q0 + q1 - 1) as deterministics, observed ``k``, ``k0``, ``k1``.

    Notes
    -----
    **Truncation to q0 + q1 > 1** (``prior.better_than_chance``). The target prior is

    .. math:: \pi(q_0, q_1) \propto \mathrm{Beta}(q_0; a_0, b_0)\,\mathrm{Beta}(q_1; a_1, b_1)\,
              \mathbf 1\{q_0 + q_1 > 1\}.

    For q0 in (0, 1) the admissible q1 form the interval (1 - q0, 1). The model samples
    ``q0 ~ Beta(a0, b0)`` and a free ``q1_scaled ~ Uniform(0, 1)`` (v below) and sets

    .. math:: q_1 = (1 - q_0) + q_0 v = 1 - q_0 (1 - v),

    a bijection from (0, 1)^2 onto the triangle {q0 + q1 > 1} with Jacobian
    :math:`|\partial(q_0, q_1)/\partial(q_0, v)| = \partial q_1/\partial v = q_0`. A potential
    ``q1_prior`` adds :math:`\log \mathrm{Beta}(q_1; a_1, b_1) + \log q_0`, so the density of
    (q0, v) is :math:`\mathrm{Beta}(q_0)\cdot 1 \cdot \mathrm{Beta}(q_1(q_0, v))\, q_0`, and the
    change of variables back to (q0, q1) divides by the Jacobian q0:

    .. math:: \pi(q_0, q_1) = \mathrm{Beta}(q_0)\,\mathrm{Beta}(q_1)\quad\text{on } q_0 + q_1 > 1,

    exactly the truncated product (its normalising constant is irrelevant to MCMC). The density
    is smooth inside the triangle, so NUTS never proposes an impossible point. Because part of the
    prior lives in a potential, ``pm.sample_prior_predictive`` ignores it (PyMC warns); use the
    exact engine (or NUTS on the model without observations) for prior draws.

    Without the truncation q0 and q1 are plain independent ``pm.Beta`` variables.
    """
    import pymc as pm
    import pytensor.tensor as pt

    prior = _check_inputs(data, prior)
    with pm.Model() as model:
        counts = {key: pm.Data(name, getattr(data, key)) for key, name in DATA_NAMES.items()}
        theta = pm.Beta("theta", *prior.theta)
        q0 = pm.Beta("q0", *prior.q0)
        if prior.better_than_chance:
            scaled = pm.Uniform("q1_scaled", 0.0, 1.0)
            q1 = pm.Deterministic("q1", 1.0 - q0 * (1.0 - scaled))
            pm.Potential("q1_prior", pm.logp(pm.Beta.dist(*prior.q1), q1) + pt.log(q0))
        else:
            q1 = pm.Beta("q1", *prior.q1)
        p = pm.Deterministic("p", theta * q1 + (1.0 - theta) * (1.0 - q0))
        pm.Deterministic("youden", q0 + q1 - 1.0)
        pm.Binomial("k", n=counts["n"], p=p, observed=counts["k"])
        pm.Binomial("k0", n=counts["m0"], p=q0, observed=counts["k0"])
        pm.Binomial("k1", n=counts["m1"], p=q1, observed=counts["k1"])
    return model


def set_counts(model: pm.Model, data: JudgeData) -> None:
    """Swap the counts of ``data`` into a model made by :func:`build_model` (``pm.set_data``)."""
    import pymc as pm

    if not isinstance(data, JudgeData):
        raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
    pm.set_data({name: getattr(data, key) for key, name in DATA_NAMES.items()}, model=model)


# -------------------------------------------------------------------------------------------
# compiled NUTS, cached per key: (prior, target_accept) for this model
# -------------------------------------------------------------------------------------------
@dataclass
class CompiledNUTS:
    """A built model with its compiled NUTS step, reusable for any data of the same structure.

    Created by :func:`compile_nuts` (via :func:`compiled_nuts` for this module's model); ``run``
    samples chains sequentially with PyMC's NUTS step, re-tuning from the same pristine state on
    every chain (as ``pm.sample`` does). ``set_data(model, data)`` swaps ``data`` into the
    model's ``pm.Data`` containers (:func:`set_counts` for :func:`build_model`); ``data`` must be
    picklable (forked workers receive it) and is described in error messages by its
    ``to_dict()`` when it has one.
    """

    model: Any
    step: Any
    pristine_state: Any
    start: dict[str, np.ndarray]
    logp: Any
    transform: Any
    value_names: tuple[str, ...]
    output_names: tuple[str, ...] = POSTERIOR_NAMES
    set_data: Callable[[Any, Any], None] = set_counts
    lock: threading.Lock = field(default_factory=threading.Lock)
    uses: int = 0
    pools: dict[int, Any] = field(default_factory=dict)

    def run(
        self, data: Any, *, draws: int, tune: int, chains: int,
        rng: np.random.Generator, jitter_retries: int = 10, cores: int = 1,
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Sample ``chains`` chains for ``data``; return (posterior draws, sample stats).

        Posterior arrays have shape (chains, draws, *variable shape) and hold the variables of
        ``output_names``; sample stats have shape (chains, draws). Chain ``c`` uses the c-th
        child of ``rng`` and starts
        from the pristine (untuned) step state, so the draws do not depend on ``cores``: with
        ``cores > 1`` (Linux only) chains run in a pool of ``cores - 1`` worker processes forked
        from this one (they inherit the compiled model, so nothing is recompiled) while this
        process runs its share. Raises RuntimeError with an explanation if the sampler fails
        (e.g. SamplingError: bad initial energy) and ValueError if no finite starting point is
        found.
        """
        chain_rngs = rng.spawn(chains)
        with self.lock:
            self.uses += 1
            self.set_data(self.model, data)
            workers = min(cores, chains) - 1 if _can_fork() else 0
            pending = {}
            if workers > 0:
                pool = self._pool(workers)
                pending = {c: pool.apply_async(_worker_chain, (data, chain_rngs[c], draws, tune,
                                                              jitter_retries, c))
                           for c in range(chains) if c % (workers + 1)}
            results = {c: self.sample_chain(data, chain_rngs[c], draws, tune, jitter_retries, c)
                       for c in range(chains) if c not in pending}
            results.update({c: job.get() for c, job in pending.items()})
        values = {name: np.stack([results[c][0][name] for c in range(chains)])
                  for name in self.value_names}
        stats = {name: np.stack([results[c][1][name] for c in range(chains)])
                 for name in results[0][1]}
        return self._posterior(values), stats

    def sample_chain(
        self, data: Any, rng: np.random.Generator, draws: int, tune: int,
        jitter_retries: int, chain: int,
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """One chain on the data already set: unconstrained draws and sample stats."""
        from pymc.exceptions import SamplingError

        values = {name: np.empty((1, draws, *np.shape(self.start[name])))
                  for name in self.value_names}
        stats: dict[str, np.ndarray] = {}
        point = self._jittered_start(rng, jitter_retries, data)
        self.step.sampling_state = self.pristine_state
        self.step.set_rng(rng)
        self.step.tune = bool(tune)
        self.step.reset_tuning()
        self.step.iter_count = 0
        try:
            for i in range(tune + draws):
                if i == tune:
                    self.step.stop_tuning()
                point, step_stats = self.step.step(point)
                if i >= tune:
                    _record(values, stats, point, step_stats[0], 0, i - tune, (1, draws))
        except (SamplingError, FloatingPointError, ValueError) as error:
            raise RuntimeError(
                f"NUTS failed on chain {chain} for counts {_describe(data)}: "
                f"{str(error).splitlines()[0] if str(error) else type(error).__name__}. "
                "Try a different `random_seed`, more `tune` steps, a more informative "
                "`prior`, or method='exact'."
            ) from None
        return ({name: array[0] for name, array in values.items()},
                {name: array[0] for name, array in stats.items()})

    def _pool(self, workers: int) -> Any:
        """The persistent worker pool of this compiled model (forked once, reused)."""
        global _FORKING
        pool = self.pools.get(workers)
        if pool is None:
            import atexit
            import multiprocessing

            _FORKING = self
            try:
                pool = multiprocessing.get_context("fork").Pool(workers)
            finally:
                _FORKING = None
            atexit.register(pool.terminate)
            self.pools[workers] = pool
        return pool

    def _jittered_start(
        self, rng: np.random.Generator, retries: int, data: Any
    ) -> dict[str, np.ndarray]:
        """Start in unconstrained space at the prior's initial point plus U(-1, 1) jitter."""
        for _ in range(retries):
            point = {name: value + rng.uniform(-1.0, 1.0, size=np.shape(value))
                     for name, value in self.start.items()}
            if np.isfinite(self.logp(point)):
                return point
        raise ValueError(
            f"no starting point with a finite log density was found for counts "
            f"{_describe(data)} after {retries} tries; check that the `prior` allows the data."
        )

    def _posterior(self, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Map unconstrained draws (chains, draws, *shape) to the output variables."""
        name = self.value_names[0]
        shape = values[name].shape[:values[name].ndim - np.ndim(self.start[name])]
        flat = [values[name].reshape(-1, *np.shape(self.start[name]))
                for name in self.value_names]
        outputs = self.transform(*flat)
        return {name: np.asarray(out).reshape(*shape, *np.shape(out)[1:]) for name, out in
                zip(self.output_names, outputs, strict=True)}


def _describe(data: Any) -> Any:
    """What error messages show of ``data``: its ``to_dict()`` when it has one."""
    to_dict = getattr(data, "to_dict", None)
    return to_dict() if callable(to_dict) else data


_STAT_NAMES = {"diverging": "diverging", "energy": "energy", "energy_error": "energy_error",
               "step_size": "step_size", "depth": "tree_depth", "n_steps": "n_steps",
               "mean_tree_accept": "acceptance_rate", "model_logp": "lp",
               "reached_max_treedepth": "reached_max_treedepth", "tree_size": "tree_size"}


_FORKING: CompiledNUTS | None = None   # the model a worker pool is being forked for


def _can_fork() -> bool:
    """Forked workers are used on Linux only (fork is unsafe on macOS, absent on Windows)."""
    import sys

    return sys.platform.startswith("linux")


def _worker_chain(data: Any, rng: np.random.Generator, draws: int, tune: int,
                  jitter_retries: int, chain: int) -> tuple[dict[str, np.ndarray], ...]:
    """Run one chain in a forked worker, on the compiled model it inherited.

    ``data`` arrives pickled from the parent and is swapped in with the engine's ``set_data``.
    """
    engine = _FORKING
    if engine is None:  # pragma: no cover - only reachable if the pool was not forked by _pool
        raise RuntimeError("worker process has no compiled model")
    engine.set_data(engine.model, data)
    return engine.sample_chain(data, rng, draws, tune, jitter_retries, chain)


def _record(values, stats, point, step_stats, chain, draw, shape) -> None:
    for name, array in values.items():
        array[chain, draw] = point[name]
    for key, name in _STAT_NAMES.items():
        if key not in step_stats:
            continue
        if name not in stats:
            dtype = bool if key in ("diverging", "reached_max_treedepth") else float
            stats[name] = np.zeros(shape, dtype=dtype)
        stats[name][chain, draw] = step_stats[key]


_CACHE: dict[Hashable, CompiledNUTS] = {}
_CACHE_LOCK = threading.RLock()   # re-entrant: a factory may fetch another cached engine
_CACHE_STATS = {"hits": 0, "misses": 0}


def cached_nuts(key: Hashable, factory: Callable[[], CompiledNUTS]) -> CompiledNUTS:
    """Return the engine cached under ``key``, calling ``factory()`` to compile it on first use.

    One cache (and one :func:`cache_info` / :func:`clear_cache`) serves every model; callers
    other than :func:`compiled_nuts` start their key with a string naming the model, e.g.
    ``("random", prior, target_accept)``, so keys never collide.
    """
    with _CACHE_LOCK:
        entry = _CACHE.get(key)
        if entry is not None:
            _CACHE_STATS["hits"] += 1
            return entry
        _CACHE_STATS["misses"] += 1
        entry = factory()
        _CACHE[key] = entry
        return entry


def compiled_nuts(prior: Prior | None = None, *, target_accept: float = 0.8) -> CompiledNUTS:
    """Return the cached compiled model and NUTS step for ``prior`` (built on first use).

    The model is built with placeholder counts (a 50/50 judge on 10 + 10 + 10 items); every
    :meth:`CompiledNUTS.run` swaps in the real counts. The structure of the model depends only on
    the prior, so one compilation serves every dataset.
    """
    prior = Prior() if prior is None else prior
    if not isinstance(prior, Prior):
        raise TypeError(f"`prior` must be a judgecal.bayes.Prior or None, got "
                        f"{type(prior).__name__}.")
    target_accept = float(target_accept)
    return cached_nuts((prior, target_accept), lambda: compile_nuts(
        build_model(_PLACEHOLDER, prior), target_accept=target_accept))


def nuts_step(model: pm.Model, target_accept: float) -> Any:
    """PyMC's NUTS step for ``model``, calling its compiled log density without input checks.

    NUTS always passes a float64 vector of the right length, so PyTensor's per-call input
    validation (``trust_input``) is skipped: about half of the per-leapfrog overhead of this
    3-parameter model.
    """
    import pymc as pm

    with model:
        step = pm.NUTS(target_accept=target_accept)
    function = getattr(getattr(step, "_logp_dlogp_func", None), "_pytensor_function", None)
    if function is not None:
        function.trust_input = True
    return step


_PLACEHOLDER = JudgeData(k=5, n=10, k0=7, m0=10, k1=7, m1=10)


def compile_nuts(
    model: pm.Model, *, target_accept: float,
    output_names: tuple[str, ...] = POSTERIOR_NAMES,
    set_data: Callable[[Any, Any], None] = set_counts,
    like: CompiledNUTS | None = None,
) -> CompiledNUTS:
    """Compile NUTS, the log density and the draws -> outputs map of a model built on pm.Data.

    Parameters
    ----------
    model : pymc.Model
        Built with placeholder data held in ``pm.Data`` containers; its structure (variables and
        their shapes) must not depend on the data that ``set_data`` later swaps in.
    target_accept : float
        NUTS target acceptance rate.
    output_names : tuple of str
        Variables :meth:`CompiledNUTS.run` reports (free variables and deterministics).
    set_data : callable
        ``set_data(model, data)`` swaps new data into the containers (:func:`set_counts`).
    like : CompiledNUTS, optional
        An engine of a model with the same free variables and outputs: its start point and
        compiled transform are reused instead of compiled again.

    Returns
    -------
    CompiledNUTS
    """
    step = nuts_step(model, target_accept)
    value_names = tuple(v.name for v in model.value_vars)
    if like is not None and (like.value_names, like.output_names) == (value_names, output_names):
        start, transform = like.start, like.transform
    else:
        start = {name: np.asarray(value, dtype=float)
                 for name, value in model.initial_point().items()}
        transform = _batched_transform(model, output_names)
    return CompiledNUTS(
        model=model, step=step, pristine_state=step.sampling_state, start=start,
        logp=model.compile_logp(), transform=transform, value_names=value_names,
        output_names=tuple(output_names), set_data=set_data,
    )


def _batched_transform(model: pm.Model, output_names: tuple[str, ...]) -> Any:
    """Compiled map from a batch of unconstrained values (leading axis) to the outputs."""
    import pytensor
    import pytensor.tensor as pt
    from pytensor.graph.replace import vectorize_graph

    value_vars = model.value_vars
    outputs = model.replace_rvs_by_values([model[name] for name in output_names])
    batched = [pt.tensor(v.name, dtype=v.dtype, shape=(None, *v.type.shape)) for v in value_vars]
    batched_outputs = vectorize_graph(outputs, replace=dict(zip(value_vars, batched, strict=True)))
    return pytensor.function(batched, batched_outputs, on_unused_input="ignore")


def cache_info() -> dict[str, int]:
    """Return ``{"hits", "misses", "size"}`` of the compiled-model cache."""
    with _CACHE_LOCK:
        return {**_CACHE_STATS, "size": len(_CACHE)}


def clear_cache() -> None:
    """Drop every cached compiled model (and reset the hit/miss counters)."""
    with _CACHE_LOCK:
        _CACHE.clear()
        _CACHE_STATS.update(hits=0, misses=0)
