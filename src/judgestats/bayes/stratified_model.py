r"""The hierarchical model of stratified calibration, its counts and its compiled NUTS sampler.

Strata s = 1..S (task categories) each have their own test counts (k_s of n_s judged correct)
and their own calibration (k0_s of m0_s truly-incorrect items judged incorrect, k1_s of m1_s
truly-correct items judged correct). The judge's specificity and sensitivity differ between
strata but are alike, so their logits are partially pooled (Gelman et al. 2013, ch. 5):

.. math::
    \theta_s \sim \mathrm{Uniform}(0, 1), \\
    \mu_j \sim \mathrm{Normal}(\mathrm{logit}\,0.8,\ 1.5), \quad
    \tau_j \sim \mathrm{HalfNormal}(s), \quad z_{js} \sim \mathrm{Normal}(0, 1), \\
    \mathrm{logit}\, q_{0s} = \mu_0 + \tau_0 z_{0s}, \quad
    \mathrm{logit}\, q_{1s} = \mu_1 + \tau_1 z_{1s}, \\
    q_{0s} + q_{1s} > 1 \ \text{for every } s, \\
    k_s \sim \mathrm{Bin}\big(n_s,\ \theta_s q_{1s} + (1 - \theta_s)(1 - q_{0s})\big), \quad
    k_{0s} \sim \mathrm{Bin}(m_{0s}, q_{0s}), \quad k_{1s} \sim \mathrm{Bin}(m_{1s}, q_{1s}), \\
    \theta = \textstyle\sum_s w_s \theta_s, \quad w_s = n_s / \sum_r n_r.

**Priors and why.** theta_s is uniform, as in the binary model (:class:`~judgestats.Prior`).
mu_j, the population mean of logit q_j, is centred on logit 0.8 = 1.386 (a judge that is right
four times in five, typical of the LLM judges the papers study) with sd 1.5, so 95% of its prior
mass lies on q between 0.17 and 0.99: the data, not the prior, decide where the judge sits.
tau_j, the between-strata spread of logit q_j, has a half-normal prior whose scale ``s`` is
``StratifiedPrior(tau_scale)`` (:class:`judgestats.bayes.StratifiedPrior`, default 1): tau near
0 is the pooled (one-judge) calibration, a large tau leaves each stratum on its own calibration.
Scale 1 puts prior median 0.67 on tau, i.e. strata whose q differ by a factor of about two in
odds are unsurprising, and strata with tiny calibration sets are pulled towards the others only
as far as the strata with large calibration sets agree. The better-than-chance constraint (q0_s
+ q1_s > 1, which identifies the model: the likelihood is unchanged by swapping the roles of
correct and incorrect) is a potential that is ``-inf`` outside, so the prior is the hierarchical
one restricted to that region.

**Parametrisation** (exactly the model above; only the coordinates NUTS moves in differ). The
non-centred offsets z, N(0, 1) a priori, are written z = a + b e with a free ``z_white`` e,
a = tau I (l_hat - mu) / (1 + tau^2 I), b = (1 + tau^2 I)^(-1/2), where l_hat is a stratum's
smoothed calibration logit and I = m q_hat (1 - q_hat) its binomial information; a potential
adds log N(z; 0, 1) + log b, the exact density of e. With little calibration (I -> 0) this is
the plain non-centred form, with much (tau^2 I large) it is centred on the data; mu is
whitened the same way given tau (``mu_white``). The plain non-centred form diverged on every
realistic example tried (3 strata, 30 to 400 calibration items per arm); this form has no
divergences there. Strata with a handful of calibration items still show a few divergences at
times (theta_s moves with q0_s and q1_s along the curve the test count allows): the flag says
so, and a higher ``target_accept`` helps.

**The posterior** and its result are :func:`judgestats.stratified.stratified_posterior` and
:class:`judgestats.stratified.StratifiedPosterior` (:mod:`judgestats.stratified.bayesian`): NUTS
on this model, or, with one stratum (nothing is pooled), the exact binary posterior.

The counts live in ``pm.Data`` containers (:data:`DATA_NAMES`), so the model is built and
compiled once per number of strata (:func:`compiled_stratified_nuts`, kept in a caller-held
:class:`~judgestats.bayes.nuts.NutsCache`) and a later fit swaps its counts in
(:func:`set_stratified_data`). This module imports nothing from :mod:`judgestats.stratified`: it
reads the arrays of any object with ``strata``, ``k``, ``n``, ``k0``, ``m0``, ``k1``, ``m1``
(:class:`judgestats.stratified.StratifiedData`), which sits above it. pymc, pytensor and arviz
are imported inside the functions only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from judgestats.bayes._quiet import quiet_import
from judgestats.bayes.nuts import CompiledNUTS, NutsCache
from judgestats.bayes.priors import StratifiedPrior, checked_prior

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

__all__ = [
    "CHECKED",
    "DATA_NAMES",
    "MU_LOC",
    "MU_SCALE",
    "OUTPUT_NAMES",
    "StratifiedCounts",
    "build_stratified_model",
    "compiled_stratified_nuts",
    "set_stratified_data",
    "stratified_idata",
]

#: Prior of mu_j, the population mean of logit q_j: Normal(logit 0.8, 1.5) (module docstring).
MU_LOC = math.log(4.0)
MU_SCALE = 1.5
#: Name of the ``pm.Data`` container of each per-stratum count, and of the prior scale of tau.
DATA_NAMES = {
    "k": "k_data",
    "n": "n",
    "k0": "k0_data",
    "m0": "m0",
    "k1": "k1_data",
    "m1": "m1",
    "tau_scale": "tau_scale",
}
#: Variables reported in the posterior's ``idata`` (the helpers ``z`` are not).
OUTPUT_NAMES = ("theta", "theta_s", "q0", "q1", "youden", "mu", "tau")
#: Variables whose convergence (R-hat, ESS) is checked: the reported quantities.
CHECKED = ("theta", "theta_s", "q0", "q1")
_COUNT_NAMES = ("k", "n", "k0", "m0", "k1", "m1")


# -------------------------------------------------------------------------------------------
# counts and the model
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class StratifiedCounts:
    """The per-stratum counts and the prior scale of tau, as the model's containers take them.

    Build with :meth:`from_data` from any object with ``strata`` and the six count arrays
    (:class:`judgestats.stratified.StratifiedData`); the arrays are int64 copies.
    """

    strata: tuple[str, ...]
    counts: dict[str, np.ndarray]
    tau_scale: float = 1.0

    @classmethod
    def from_data(cls, data: Any, tau_scale: float = 1.0) -> StratifiedCounts:
        """Read ``data.strata`` and ``data.k`` ... ``data.m1`` (a TypeError names ``data``)."""
        missing = [name for name in ("strata", *_COUNT_NAMES) if not hasattr(data, name)]
        if missing:
            raise TypeError(
                "`data` must be a judgestats.stratified.StratifiedData (strata and the six count "
                f"arrays), got {type(data).__name__} without {', '.join(missing)}."
            )
        counts = {name: np.array(getattr(data, name), dtype=np.int64) for name in _COUNT_NAMES}
        return cls(tuple(data.strata), counts, float(tau_scale))

    @property
    def size(self) -> int:
        """S, the number of strata."""
        return len(self.strata)

    @property
    def weights(self) -> np.ndarray:
        """The test shares w_s = n_s / N."""
        return self.counts["n"] / self.counts["n"].sum()

    def values(self) -> dict[str, np.ndarray]:
        """The container values, keyed by ``pm.Data`` name (:data:`DATA_NAMES`)."""
        out = {DATA_NAMES[name]: self.counts[name] for name in _COUNT_NAMES}
        out[DATA_NAMES["tau_scale"]] = np.asarray(self.tau_scale, dtype=float)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: the strata, the six count lists and the prior scale."""
        out: dict[str, Any] = {"strata": list(self.strata)}
        out.update({name: self.counts[name].tolist() for name in _COUNT_NAMES})
        out["tau_scale"] = self.tau_scale
        return out


def build_stratified_model(data: Any, prior: StratifiedPrior | None = None) -> pm.Model:
    """Build the hierarchical model of the module docstring.

    Parameters
    ----------
    data : StratifiedData or StratifiedCounts
        The counts per stratum (any object with ``strata`` and the six count arrays); they enter
        through the ``pm.Data`` containers of :data:`DATA_NAMES`, so
        :func:`set_stratified_data` swaps in new counts of the same number of strata.
    prior : StratifiedPrior, optional
        ``StratifiedPrior()`` by default; its ``tau_scale``, the scale of the half-normal prior
        of tau_0 and tau_1, is also a container.

    Returns
    -------
    pymc.Model
        Free ``theta_s`` (S), ``mu`` (2: arm q0, q1), ``tau`` (2) and ``z`` (2 x S);
        deterministics ``q0``, ``q1``, ``youden`` (S each) and ``theta`` (the weighted sum);
        the potential ``better_than_chance``; observed ``k``, ``k0``, ``k1``.
    """
    pm = quiet_import("pymc")
    import pytensor.tensor as pt

    counts = data if isinstance(data, StratifiedCounts) else StratifiedCounts.from_data(data)
    prior = checked_prior(prior, StratifiedPrior)
    counts = StratifiedCounts(counts.strata, counts.counts, prior.tau_scale)
    size = counts.size
    with pm.Model() as model:
        box = {name: pm.Data(name, value) for name, value in counts.values().items()}
        theta_s = pm.Uniform("theta_s", 0.0, 1.0, shape=size)
        tau = pm.HalfNormal("tau", box[DATA_NAMES["tau_scale"]], shape=2)
        l_hat, info = _calibration_logits(box)
        shrink = 1.0 + tau[:, None] ** 2 * info
        mu = _population_means(l_hat, info / shrink)
        z = _offsets(l_hat, info, shrink, tau, mu, size)
        q = pm.math.invlogit(mu[:, None] + tau[:, None] * z)
        q0 = pm.Deterministic("q0", q[0])
        q1 = pm.Deterministic("q1", q[1])
        pm.Deterministic("youden", q0 + q1 - 1.0)
        pm.Potential("better_than_chance", pt.sum(pt.switch(q0 + q1 > 1.0, 0.0, -np.inf)))
        n = box[DATA_NAMES["n"]]
        pm.Deterministic("theta", pt.sum(n * theta_s) / pt.sum(n))
        p = theta_s * q1 + (1.0 - theta_s) * (1.0 - q0)
        pm.Binomial("k", n=n, p=p, observed=box[DATA_NAMES["k"]])
        pm.Binomial("k0", n=box[DATA_NAMES["m0"]], p=q0, observed=box[DATA_NAMES["k0"]])
        pm.Binomial("k1", n=box[DATA_NAMES["m1"]], p=q1, observed=box[DATA_NAMES["k1"]])
    return model


def _calibration_logits(box: dict[str, Any]) -> tuple[Any, Any]:
    """Smoothed logit q_hat (arm x stratum) and its binomial information m q_hat (1 - q_hat).

    q_hat = (k + 1/2) / (m + 1); used only to choose the coordinates NUTS moves in.
    """
    import pytensor.tensor as pt

    logits, information = [], []
    for k, m in (("k0", "m0"), ("k1", "m1")):
        trials = box[DATA_NAMES[m]]
        q_hat = (box[DATA_NAMES[k]] + 0.5) / (trials + 1.0)
        logits.append(pt.log(q_hat) - pt.log1p(-q_hat))
        information.append(trials * q_hat * (1.0 - q_hat))
    return pt.stack(logits), pt.stack(information)


def _population_means(l_hat: Any, precision: Any) -> Any:
    """Population means mu (per arm), Normal(MU_LOC, MU_SCALE) a priori, whitened given tau.

    mu = c + sqrt(v) w with a free ``mu_white`` w, 1/v = 1/MU_SCALE^2 + sum_s P_s,
    c = v (MU_LOC/MU_SCALE^2 + sum_s P_s l_hat_s), P_s = 1/(tau^2 + 1/I_s); the potential
    ``mu_prior`` adds log Normal(mu; MU_LOC, MU_SCALE) + log sqrt(v), the exact density of w.
    """
    pm = quiet_import("pymc")
    import pytensor.tensor as pt

    variance = 1.0 / (MU_SCALE**-2 + pt.sum(precision, axis=1))
    centre = variance * (MU_LOC * MU_SCALE**-2 + pt.sum(precision * l_hat, axis=1))
    white = pm.Flat("mu_white", shape=2)
    mu = pm.Deterministic("mu", centre + pt.sqrt(variance) * white)
    pm.Potential(
        "mu_prior",
        pt.sum(-0.5 * ((mu - MU_LOC) / MU_SCALE) ** 2 + 0.5 * pt.log(variance)),
    )
    return mu


def _offsets(l_hat: Any, info: Any, shrink: Any, tau: Any, mu: Any, size: int) -> Any:
    """The offsets z (arm x stratum), N(0, 1) a priori, whitened given (mu, tau) (docstring).

    z = a + b e with a free ``z_white`` e, a = tau I (l_hat - mu) / (1 + tau^2 I) and
    b = (1 + tau^2 I)^(-1/2) (``shrink`` = 1 + tau^2 I); the potential ``z_prior`` adds
    log N(z; 0, 1) + log b, the exact density of e.
    """
    pm = quiet_import("pymc")
    import pytensor.tensor as pt

    white = pm.Flat("z_white", shape=(2, size))
    z = tau[:, None] * info * (l_hat - mu[:, None]) / shrink + white / pt.sqrt(shrink)
    pm.Potential("z_prior", pt.sum(-0.5 * z**2 - 0.5 * pt.log(shrink)))
    return z


def set_stratified_data(model: pm.Model, counts: StratifiedCounts) -> None:
    """Swap ``counts`` into a model of :func:`build_stratified_model` with as many strata."""
    pm = quiet_import("pymc")

    pm.set_data(counts.values(), model=model)


def _placeholder(size: int) -> StratifiedCounts:
    """Counts the compiled models are built with (every fit swaps the real counts in)."""
    ones = np.ones(size, dtype=np.int64)
    counts = {"k": 5 * ones, "n": 10 * ones, "k0": 7 * ones, "m0": 10 * ones}
    counts.update(k1=7 * ones, m1=10 * ones)
    return StratifiedCounts(tuple(f"s{i}" for i in range(size)), counts)


def compiled_stratified_nuts(
    size: int, *, target_accept: float, cache: NutsCache | None = None
) -> CompiledNUTS:
    """The compiled model with ``size`` strata and its NUTS step.

    Compiled on first use and kept in ``cache`` (a caller-held
    :class:`~judgestats.bayes.nuts.NutsCache`) under ``("stratified", size, target_accept)``;
    without a cache it is compiled for this call only. The prior scale is a container, so one
    compilation serves every ``tau_scale``. Its ``run`` takes a :class:`StratifiedCounts`.
    """
    from judgestats.bayes.nuts import compile_nuts

    target_accept = float(target_accept)
    key = ("stratified", int(size), target_accept)

    def factory() -> CompiledNUTS:
        return compile_nuts(
            build_stratified_model(_placeholder(size)),
            target_accept=target_accept,
            output_names=OUTPUT_NAMES,
            set_data=set_stratified_data,
            key=key,
        )

    return factory() if cache is None else cache.get(key, factory)


# -------------------------------------------------------------------------------------------
# the InferenceData
# -------------------------------------------------------------------------------------------
_DIMS = {
    **{name: ["stratum"] for name in ("theta_s", "q0", "q1", "youden", "k", "k0", "k1")},
    **{name: ["stratum"] for name in ("n", "m0", "m1")},
    "mu": ["arm"],
    "tau": ["arm"],
}


def stratified_idata(
    posterior: dict[str, np.ndarray],
    counts: StratifiedCounts,
    sample_stats: dict[str, np.ndarray] | None = None,
) -> Any:
    """InferenceData: posterior (dims stratum, and arm for mu and tau), observed and constant data.

    ``posterior`` maps names to arrays (chain, draw, ...); ``sample_stats`` (NUTS) is added when
    given.
    """
    az = quiet_import("arviz")

    coords = {"stratum": list(counts.strata)}
    extra: dict[str, Any] = {}
    if sample_stats is not None:
        coords["arm"] = ["q0", "q1"]
        extra["sample_stats"] = sample_stats
    return az.from_dict(
        posterior=posterior,
        observed_data={name: counts.counts[name] for name in ("k", "k0", "k1")},
        constant_data={name: counts.counts[name] for name in ("n", "m0", "m1")},
        coords=coords,
        dims=_DIMS,
        **extra,
    )
