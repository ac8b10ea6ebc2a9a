r"""The K-class posterior: true class shares pi and the judge's confusion matrix C.

**Model.** For a judge with K verdicts (:class:`judgestats.kclass.KClassData`),

.. math::
    \pi \sim \mathrm{Dirichlet}(\alpha \mathbf 1_K), \qquad
    C_{i\cdot} \sim \mathrm{Dirichlet}(\beta \mathbf 1_K) \ (i = 1..K,\ \text{independent}),
    \quad \text{restricted to } D, \\
    D = \{C : C_{jj} > C_{ij} \ \text{for all } i \ne j,\ \det C > 0\}, \qquad
    p = C^\top \pi, \\
    \mathrm{confusion}_{i\cdot} \sim \mathrm{Mult}(m_i, C_{i\cdot}), \qquad
    \mathrm{test} \sim \mathrm{Mult}(n, p),

and with ``design="random"`` also :math:`(m_1, \dots, m_K) \sim \mathrm{Mult}(\sum_i m_i, \pi)`
(the labelled items are a random subsample, so their true classes inform pi). D is the
identifiability set: in every column the diagonal dominates (a truly-j item is judged j more
often than an item of any other class is), and C keeps its orientation (det C > 0: from K = 4 on
a column-dominant C can be singular or reverse orientation, and the closed form refuses such a
judge too). At K = 2 D is q0 + q1 > 1 (q0 = C[0, 0], q1 = C[1, 1]), so with alpha = beta = 1
this is the binary model of :func:`judgestats.bayes.model.build_model` under ``Prior()``
(theta = pi[1]).

**The default prior** (:class:`judgestats.bayes.DirichletPrior`). alpha = 1 (uniform on the
simplex) and beta = 2 / K: every row of C carries two prior pseudo-items spread evenly over its
K cells, the budget of the closed form's smoothing (:mod:`judgestats.kclass.matrix`); at K = 2
it is the binary model's uniform prior. A uniform prior on every row (beta = 1) would add K
pseudo-items per row and pull a K = 5 rubric judge measured on 30 items per score noticeably
towards guessing, which pushes the corrected shares outwards: in ``benchmarks/kclass_coverage.py
--posterior`` the mean score's credible interval covered 0.83 with beta = 1 and 0.94 with beta =
2 / K on the same 200 datasets.

**Engines.** :func:`judgestats.kclass.kclass_posterior` (the entry point and its result,
:mod:`judgestats.kclass.bayesian`) picks one with ``method=``: ``"importance"`` (importance
sampling, K <= 5; :mod:`judgestats.bayes.kclass_importance`), ``"nuts"`` (any K: PyMC's NUTS on
:func:`build_kclass_model`, compiled by :func:`judgestats.bayes.nuts.compile_nuts`, run by
:func:`sample_kclass_nuts`; D enters as a ``pm.Potential``, 0 inside and -inf outside, and C
starts inside D) or ``"exact"`` (K = 2 with alpha = beta = 1: the binary posterior of
:func:`judgestats.posterior`).

Like :mod:`judgestats.bayes.stratified_model`, this module imports nothing from
:mod:`judgestats.kclass` (which sits above it): it reads the arrays of any object with
``classes``, ``test``, ``n``, ``confusion``, ``m`` and ``design``
(:class:`judgestats.kclass.KClassData`). pymc, pytensor and arviz are imported inside the
functions only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from judgestats.bayes._quiet import quiet_import
from judgestats.bayes.diagnostics import convergence, convergence_flags
from judgestats.bayes.priors import DirichletPrior, checked_prior

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

    from judgestats.bayes.nuts import NutsCache
    from judgestats.kclass.data import KClassData

__all__ = [
    "KClassDraws",
    "build_kclass_model",
    "kclass_idata",
    "sample_kclass_nuts",
    "set_kclass_data",
]


# -------------------------------------------------------------------------------------------
# the PyMC model
# -------------------------------------------------------------------------------------------
def _data_values(data: KClassData, prior: DirichletPrior) -> dict[str, np.ndarray]:
    return {
        "test_data": data.test.astype(np.int64),
        "n": np.asarray(data.n, dtype=np.int64),
        "confusion_data": data.confusion.astype(np.int64),
        "m": data.m.astype(np.int64),
        "labelled": np.asarray(int(data.m.sum()), dtype=np.int64),
        "alpha": np.asarray(float(prior.alpha)),
        "beta": np.asarray(float(prior.beta)),  # type: ignore[arg-type]
    }


def build_kclass_model(data: KClassData, prior: DirichletPrior | None = None) -> pm.Model:
    """Build the K-class model of the module docstring.

    Parameters
    ----------
    data : KClassData
        The counts; they enter through ``pm.Data`` containers (``test_data``, ``n``,
        ``confusion_data``, ``m``, ``labelled``, ``alpha``, ``beta``), so new counts of the same
        K and design can be swapped in with ``pm.set_data``.
    prior : DirichletPrior, optional
        ``DirichletPrior()`` by default: alpha = 1 (uniform on the simplex), beta = 2 / K.

    Returns
    -------
    pymc.Model
        Free ``pi`` (dim ``class``) and ``C`` (dims ``true``, ``judged``); deterministic ``p``
        (dim ``class``); the potential ``diagonal_dominance`` (D); observed ``confusion``,
        ``test`` and, with the random design, ``labelled_classes``.
    """
    pm = quiet_import("pymc")
    import pytensor.tensor as pt

    prior = checked_prior(prior, DirichletPrior).for_classes(data.size)
    size = data.size
    names = [str(c) for c in data.classes]
    coords = {"class": names, "true": names, "judged": names}
    start = 0.5 * np.eye(size) + 0.5 / size  # inside D
    with pm.Model(coords=coords) as model:
        box = {name: pm.Data(name, value) for name, value in _data_values(data, prior).items()}
        pi = pm.Dirichlet("pi", a=box["alpha"] * pt.ones(size), dims="class")
        c = pm.Dirichlet(
            "C", a=box["beta"] * pt.ones((size, size)), dims=("true", "judged"), initval=start
        )
        diagonal = pt.diagonal(c)
        off = c + pt.eye(size) * (-2.0)  # the diagonal never wins against itself
        dominant = pt.all(pt.gt(diagonal, pt.max(off, axis=0))) & pt.gt(pt.linalg.det(c), 0.0)
        pm.Potential("diagonal_dominance", pt.switch(dominant, 0.0, -np.inf))
        p = pm.Deterministic("p", pt.dot(c.T, pi), dims="class")
        pm.Multinomial("confusion", n=box["m"], p=c, observed=box["confusion_data"])
        pm.Multinomial("test", n=box["n"], p=p, observed=box["test_data"])
        if data.design == "random":
            pm.Multinomial("labelled_classes", n=box["labelled"], p=pi, observed=box["m"])
    return model


def set_kclass_data(model: Any, spec: tuple[KClassData, DirichletPrior]) -> None:
    """Swap ``(data, prior)`` (beta resolved) into a model of :func:`build_kclass_model`."""
    pm = quiet_import("pymc")

    pm.set_data(_data_values(*spec), model=model)


# -------------------------------------------------------------------------------------------
# NUTS and the InferenceData
# -------------------------------------------------------------------------------------------
def kclass_idata(pi: np.ndarray, c: np.ndarray, data: KClassData, **extra: Any) -> Any:
    """InferenceData of pi (chain, draw, class), C (chain, draw, true, judged) and p."""
    az = quiet_import("arviz")

    names = [str(k) for k in data.classes]
    p = np.einsum("...ij,...i->...j", c, pi)
    return az.from_dict(
        posterior={"pi": pi, "C": c, "p": p},
        observed_data={"test": data.test, "confusion": data.confusion},
        coords={"class": names, "true": names, "judged": names},
        dims={
            "pi": ["class"],
            "p": ["class"],
            "C": ["true", "judged"],
            "test": ["class"],
            "confusion": ["true", "judged"],
        },
        **extra,
    )


class KClassDraws(NamedTuple):
    """What :func:`sample_kclass_nuts` returns: flat draws, InferenceData and diagnostics."""

    pi: np.ndarray
    c: np.ndarray
    idata: Any
    diagnostics: dict[str, float]
    flags: tuple[str, ...]


def sample_kclass_nuts(
    data: KClassData,
    prior: DirichletPrior,
    *,
    draws: int,
    tune: int,
    chains: int,
    target_accept: float,
    progressbar: bool | None,
    compiled: NutsCache | None,
    rng: np.random.Generator,
) -> KClassDraws:
    """NUTS on :func:`build_kclass_model` (``prior`` with beta resolved), compiled once per K.

    Returns the draws of pi (S, K) and C (S, K, K) with chains stacked, the InferenceData
    (with ``sample_stats``) and the convergence diagnostics and flags.
    """
    from judgestats.bayes.nuts import NutsCache, compile_nuts

    if compiled is not None and not isinstance(compiled, NutsCache):
        raise TypeError(
            f"`compiled` must be a judgestats.bayes.nuts.NutsCache or None, got "
            f"{type(compiled).__name__}."
        )
    key = ("kclass", data.size, data.design, target_accept)

    def factory() -> Any:
        return compile_nuts(
            build_kclass_model(data, prior),
            target_accept=target_accept,
            output_names=("pi", "C", "p"),
            set_data=set_kclass_data,
            key=key,
        )

    sampler = factory() if compiled is None else compiled.get(key, factory)
    values, stats = sampler.run(
        (data, prior), draws=draws, tune=tune, chains=chains, rng=rng, progressbar=progressbar
    )
    idata = kclass_idata(values["pi"], values["C"], data, sample_stats=stats)
    diagnostics = convergence(idata, ("pi", "C"))
    size = data.size
    return KClassDraws(
        values["pi"].reshape(-1, size),
        values["C"].reshape(-1, size, size),
        idata,
        diagnostics,
        convergence_flags(diagnostics),
    )
