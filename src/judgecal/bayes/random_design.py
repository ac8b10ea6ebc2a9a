r"""The Bayesian model for the random calibration design (``JudgeData.design == "random"``).

The ``m = m0 + m1`` labelled items are a random subsample of the test population, so their four
(human z, judge z-hat) cells follow a multinomial, and the ``n`` unlabelled test items a binomial:

.. math::
    (c_{11}, c_{10}, c_{01}, c_{00}) \sim \mathrm{Mult}\big(m;\ \theta q_1,\ \theta(1 - q_1),\
        (1 - \theta)(1 - q_0),\ (1 - \theta) q_0\big), \qquad k \sim \mathrm{Bin}(n, p),

with :math:`p = \theta q_1 + (1 - \theta)(1 - q_0)` and the cells
:math:`c_{11} = k_1, c_{10} = m_1 - k_1, c_{01} = m_0 - k_0, c_{00} = k_0` -- the joint likelihood
whose maximum Chen et al. (2026) use. The multinomial factorises exactly (normalising constants
included, since :math:`\binom{m}{c_{11}, c_{10}, c_{01}, c_{00}} = \binom{m}{m_1}\binom{m_1}{k_1}
\binom{m_0}{k_0}`) into the labelled class count and the judge's verdicts given the class:

.. math::
    m_1 \sim \mathrm{Bin}(m, \theta), \quad k_1 \mid m_1 \sim \mathrm{Bin}(m_1, q_1), \quad
    k_0 \mid m_0 \sim \mathrm{Bin}(m_0, q_0).

The last two factors and the test-set binomial are exactly the stratified model of
:mod:`judgecal.bayes.model`, so :func:`build_random_model` builds that model (its priors, the
better-than-chance truncation and the count containers are reused, not rewritten) and adds one
observed variable, ``labelled_m1 ~ Bin(m0 + m1, theta)``. Dropping that variable -- ignoring the
labelled class counts -- gives back the stratified model.

Exact engine. The added factor :math:`\theta^{m_1}(1 - \theta)^{m_0}` depends on theta alone, so
the posterior under a ``Beta(a, b)`` theta prior *is* the stratified posterior under a
``Beta(a + m1, b + m0)`` theta prior; ``method="exact"`` evaluates it with
:class:`judgecal.bayes.exact.ExactPosterior`.

pymc is imported inside the functions only.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from judgecal.bayes.model import (
    DATA_NAMES,
    CompiledNUTS,
    build_model,
    cached_nuts,
    compile_nuts,
    compiled_nuts,
)
from judgecal.bayes.priors import Prior
from judgecal.data import JudgeData, require_design

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

    from judgecal.bayes.posterior import Posterior

__all__ = [
    "LABELLED_CLASS_NAME",
    "build_random_model",
    "random_design_posterior",
    "random_design_prior",
]

#: Observed variable of the labelled items' class count, m1 ~ Bin(m0 + m1, theta).
LABELLED_CLASS_NAME = "labelled_m1"


def build_random_model(data: JudgeData, prior: Prior | None = None) -> pm.Model:
    """Build the PyMC model of the random calibration design (see the module docstring).

    Parameters
    ----------
    data : JudgeData
        Counts with ``design="random"``: ``k`` of ``n`` unlabelled test items judged correct and
        the labelled cells ``k0, m0, k1, m1``. They enter through the ``pm.Data`` containers of
        :func:`judgecal.bayes.model.build_model`, so ``set_counts`` swaps in new counts.
    prior : Prior, optional
        ``Prior()`` by default.

    Returns
    -------
    pymc.Model
        The stratified model's variables (``theta``, ``q0``, ``q1``, ``p``, ``youden``; observed
        ``k``, ``k0``, ``k1``) plus the observed ``labelled_m1``.

    Raises
    ------
    ValueError
        If ``data.design`` is not ``"random"``.
    """
    import pymc as pm

    require_design(data, "random", "build_random_model")
    model = build_model(data, prior)
    with model:
        m0, m1 = model[DATA_NAMES["m0"]], model[DATA_NAMES["m1"]]
        pm.Binomial(LABELLED_CLASS_NAME, n=m0 + m1, p=model["theta"], observed=m1)
    return model


def random_design_prior(data: JudgeData, prior: Prior | None = None) -> Prior:
    """The stratified-model prior whose posterior equals the random-design posterior.

    theta ~ Beta(a + m1, b + m0) (the labelled class counts folded into the theta prior); the
    priors of q0 and q1 and the truncation are unchanged.
    """
    require_design(data, "random", "random_design_prior")
    prior = Prior() if prior is None else prior
    a, b = prior.theta
    return dataclasses.replace(prior, theta=(a + data.m1, b + data.m0))


# -------------------------------------------------------------------------------------------
# compiled NUTS for the random-design model, cached per (prior, target_accept)
# -------------------------------------------------------------------------------------------
_PLACEHOLDER = JudgeData(k=5, n=10, k0=7, m0=10, k1=7, m1=10, design="random")


def compiled_random_nuts(prior: Prior, *, target_accept: float = 0.8) -> CompiledNUTS:
    """Compiled random-design model and NUTS step, cached; reused for any counts.

    Compiled by :func:`judgecal.bayes.model.compile_nuts` and kept in its cache under
    ``("random", prior, target_accept)``. The model has the same free variables as the
    stratified one, so the stratified engine's start point and its compiled value -> (theta,
    q0, q1, p, youden) transform are reused; :func:`~judgecal.bayes.model.set_counts` swaps the
    counts in (the added likelihood reads the same ``m0``, ``m1`` containers).
    """
    target_accept = float(target_accept)

    def factory() -> CompiledNUTS:
        base = compiled_nuts(prior, target_accept=target_accept)
        model = build_random_model(_PLACEHOLDER, prior)
        return compile_nuts(model, target_accept=target_accept, like=base)

    return cached_nuts(("random", prior, target_accept), factory)


def random_design_posterior(
    data: JudgeData, prior: Prior, *, method: str, sampler: str, draws: int, tune: int,
    chains: int, rng: np.random.Generator, target_accept: float, cores: int = 1,
) -> Posterior:
    """Posterior of the random-design model; called by :func:`judgecal.posterior`.

    ``method="exact"`` is the stratified exact posterior under :func:`random_design_prior`;
    ``method="nuts"`` runs PyMC's NUTS on :func:`build_random_model`. The returned
    :class:`~judgecal.Posterior` holds ``data`` and the user's ``prior``; its ``observed_data``
    adds ``labelled_m1``. Arguments are validated by :func:`judgecal.posterior`.
    """
    from judgecal.bayes.posterior import Posterior, _exact_posterior, _to_idata

    require_design(data, "random", "the random-design posterior")
    if method == "exact":
        result = _exact_posterior(dataclasses.replace(data, design="stratified"),
                                  random_design_prior(data, prior), draws, chains, rng)
        result = dataclasses.replace(result, data=data, prior=prior)
    elif sampler != "pymc":
        raise ValueError(f"`sampler` ({sampler!r}) is not available for design='random'; use "
                         "sampler='pymc' or method='exact'.")
    else:
        engine = compiled_random_nuts(prior, target_accept=target_accept)
        values, stats = engine.run(data, draws=draws, tune=tune, chains=chains, rng=rng,
                                   cores=cores)
        result = Posterior.from_idata(_to_idata(values, data, stats), data=data, prior=prior,
                                      method="nuts")
    result.idata.observed_data[LABELLED_CLASS_NAME] = ((f"{LABELLED_CLASS_NAME}_dim_0",),
                                                       np.asarray([data.m1]))
    return result
