"""The full posterior of the true accuracy: :func:`posterior` and its result, :class:`Posterior`.

Two engines give the same posterior (the model of :mod:`judgecal.bayes.model`):

``method="nuts"``
    PyMC's NUTS on the compiled, cached model (``sampler="pymc"``), or nutpie when installed and
    asked for (``sampler="nutpie"``).
``method="exact"``
    :class:`judgecal.bayes.exact.ExactPosterior` (deterministic quadrature); quantiles and intervals
    of theta come from the engine itself, and ``draws * chains`` i.i.d. draws fill the
    InferenceData so ArviZ works the same for both methods.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from judgecal._validate import as_generator, check_level
from judgecal.bayes.model import OBSERVED_NAMES, POSTERIOR_NAMES, compiled_nuts
from judgecal.bayes.priors import Prior
from judgecal.data import JudgeData
from judgecal.exceptions import JudgeCalWarning
from judgecal.results import ConfidenceInterval

if TYPE_CHECKING:  # pragma: no cover
    import arviz as az
    import pandas as pd

__all__ = ["DIAGNOSTIC_FLAGS", "Posterior", "posterior"]

#: Thresholds of the convergence checks (Vehtari et al. 2021).
R_HAT_MAX = 1.01
ESS_MIN = 400

#: Plain-language explanation of every flag a :class:`Posterior` can carry.
DIAGNOSTIC_FLAGS = {
    "r_hat": f"R-hat exceeds {R_HAT_MAX}: the chains disagree",
    "low_ess": f"an effective sample size is below {ESS_MIN}",
    "divergences": "NUTS reported divergent transitions: the sampler missed part of the posterior",
}
_ADVICE = ("increase `draws` and `tune`, try a more informative `prior`, or use "
           "method='exact', which needs no sampling")
_PARAMETERS = ("theta", "q0", "q1")


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"`{name}` ({value!r}) must be a positive integer.")
    if value < 1:
        raise ValueError(f"`{name}` ({value!r}) must be a positive integer.")
    return int(value)


def _check_choice(value: Any, name: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        options = " or ".join(repr(a) for a in allowed)
        raise ValueError(f"`{name}` ({value!r}) must be {options}.")
    return str(value)




# -------------------------------------------------------------------------------------------
# the result
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Posterior:
    """Posterior of theta, q0, q1 (and p, Youden's J) for one :class:`JudgeData`.

    Attributes
    ----------
    idata : arviz.InferenceData
        Groups ``posterior`` (theta, q0, q1, p, youden), ``observed_data`` (k, k0, k1), and for
        NUTS ``sample_stats``.
    method : str
        ``"nuts"`` or ``"exact"``.
    data : JudgeData
    prior : Prior
    diagnostics : dict
        ``r_hat`` (max over theta, q0, q1), ``ess_bulk`` / ``ess_tail`` (min), ``divergences``.
    flags : tuple of str
        Keys of :data:`DIAGNOSTIC_FLAGS` that apply (NUTS only).
    """

    idata: Any
    method: str
    data: JudgeData
    prior: Prior
    diagnostics: dict[str, float] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    exact: Any = field(default=None, repr=False)

    @classmethod
    def from_idata(
        cls, idata: Any, *, data: JudgeData, prior: Prior | None = None, method: str = "nuts",
        exact: Any = None, warn: bool = True,
    ) -> Posterior:
        """Wrap an InferenceData of this model; compute diagnostics, flags and warnings."""
        prior = Prior() if prior is None else prior
        diagnostics = _diagnostics(idata)
        flags: tuple[str, ...] = ()
        if method == "nuts":
            flags = tuple(name for name, bad in (
                ("r_hat", not diagnostics["r_hat"] <= R_HAT_MAX),
                ("low_ess", not min(diagnostics["ess_bulk"], diagnostics["ess_tail"]) >= ESS_MIN),
                ("divergences", diagnostics["divergences"] > 0)) if bad)
        if flags and warn:
            details = "; ".join(DIAGNOSTIC_FLAGS[f] for f in flags)
            warnings.warn(
                f"the NUTS posterior may be unreliable ({details}; max R-hat "
                f"{diagnostics['r_hat']:.3f}, min ESS {min(diagnostics['ess_bulk'], diagnostics['ess_tail']):.0f}, "  # noqa: E501
                f"{diagnostics['divergences']} divergences): {_ADVICE}.",
                JudgeCalWarning, stacklevel=3,
            )
        return cls(idata=idata, method=method, data=data, prior=prior,
                   diagnostics=diagnostics, flags=flags, exact=exact)

    # -- numbers ------------------------------------------------------------------------------
    def draws(self, var: str = "theta") -> np.ndarray:
        """All draws of ``var`` (chains stacked), a 1-D array."""
        var = _check_choice(var, "var", POSTERIOR_NAMES)
        return np.asarray(self.idata.posterior[var]).reshape(-1)

    def quantile(self, q: Any, var: str = "theta") -> float | np.ndarray:
        """Posterior quantile(s) of ``var`` at probability ``q`` (exact engine when available)."""
        var = _check_choice(var, "var", POSTERIOR_NAMES)
        levels = np.asarray(q, dtype=float)
        if levels.size and not (np.all(levels >= 0) and np.all(levels <= 1)):
            raise ValueError(f"`q` ({q!r}) must lie in [0, 1].")
        if self.exact is not None and var in _PARAMETERS and np.all((levels > 0) & (levels < 1)):
            return self.exact.quantile(levels if levels.ndim else float(levels), var=var)
        out = np.quantile(self.draws(var), levels)
        return float(out) if np.ndim(out) == 0 else out

    def mean(self, var: str = "theta") -> float:
        """Posterior mean of ``var``."""
        var = _check_choice(var, "var", POSTERIOR_NAMES)
        if self.exact is not None and var in _PARAMETERS:
            return float(self.exact.mean(var))
        return float(np.mean(self.draws(var)))

    def ci(self, prob: float = 0.95, kind: str = "eti", var: str = "theta") -> ConfidenceInterval:
        """Credible interval: equal-tailed (``"eti"``) or highest-density (``"hdi"``).

        For ``method="exact"`` and theta the interval comes from the exact engine, not the draws.
        """
        prob = check_level(prob, "prob")
        kind = _check_choice(kind, "kind", ("eti", "hdi"))
        var = _check_choice(var, "var", POSTERIOR_NAMES)
        if self.exact is not None and var == "theta":
            low, high = self.exact.interval(prob, kind)
            return ConfidenceInterval(float(low), float(high))
        if self.exact is not None and kind == "eti" and var in _PARAMETERS:
            low, high = self.exact.quantile([(1 - prob) / 2, (1 + prob) / 2], var=var)
            return ConfidenceInterval(float(low), float(high))
        values = self.draws(var)
        if kind == "eti":
            low, high = np.quantile(values, [(1 - prob) / 2, (1 + prob) / 2])
        else:
            import arviz as az

            low, high = az.hdi(values, hdi_prob=prob)
        return ConfidenceInterval(float(low), float(high))

    def summary(self, prob: float = 0.95) -> pd.DataFrame:
        """Return an ArviZ summary: mean, sd, ETI bounds, MCSE, ess_bulk, ess_tail, r_hat."""
        import arviz as az

        prob = check_level(prob, "prob")
        frame = az.summary(self.idata, var_names=list(POSTERIOR_NAMES), kind="all",
                           hdi_prob=prob, stat_focus="mean")
        eti = {var: self.ci(prob, "eti", var) for var in POSTERIOR_NAMES}
        frame.insert(2, f"eti_{(1 - prob) / 2:.1%}", [eti[v].low for v in frame.index])
        frame.insert(3, f"eti_{(1 + prob) / 2:.1%}", [eti[v].high for v in frame.index])
        return frame

    def posterior_predictive_check(self, random_seed: Any = None) -> pd.DataFrame:
        """Posterior predictive p-values P(rep >= obs) for k, k0 and k1 (binomial replicates)."""
        import pandas as pd

        rng = as_generator(random_seed)
        d = self.data
        p, q0, q1 = (self.draws(v) for v in ("p", "q0", "q1"))
        rows = {}
        for name, total, prob, observed in (("k", d.n, p, d.k), ("k0", d.m0, q0, d.k0),
                                            ("k1", d.m1, q1, d.k1)):
            replicate = rng.binomial(total, np.clip(prob, 0.0, 1.0))
            rows[name] = {"observed": observed, "replicate_mean": float(replicate.mean()),
                          "p_value": float(np.mean(replicate >= observed))}
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.name = "count"
        return frame

    # -- output -----------------------------------------------------------------------------
    def to_dict(self, prob: float = 0.95) -> dict[str, Any]:
        """Return a JSON-safe dict: inputs, prior, per-variable mean/ETI/HDI, diagnostics, flags."""
        variables = {}
        for var in POSTERIOR_NAMES:
            eti, hdi = self.ci(prob, "eti", var), self.ci(prob, "hdi", var)
            variables[var] = {"mean": self.mean(var), "median": float(self.quantile(0.5, var)),
                              "eti": [eti.low, eti.high], "hdi": [hdi.low, hdi.high]}
        return {
            "method": self.method, "prob": float(prob), "inputs": self.data.to_dict(),
            "prior": {"theta": list(self.prior.theta), "q0": list(self.prior.q0),
                      "q1": list(self.prior.q1),
                      "better_than_chance": self.prior.better_than_chance},
            "chains": int(self.idata.posterior.sizes["chain"]),
            "draws": int(self.idata.posterior.sizes["draw"]),
            "variables": variables,
            "diagnostics": {k: (float(v) if isinstance(v, float) else int(v))
                            for k, v in self.diagnostics.items()},
            "flags": {flag: DIAGNOSTIC_FLAGS[flag] for flag in self.flags},
        }

    def plot(self, ax: Any = None, prob: float = 0.95) -> Any:
        """Plot the posterior density of theta with its ETI and the Lang-Reiczigel interval."""
        import matplotlib.pyplot as plt

        from judgecal.frequentist import lang_reiczigel_ci

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        values = self.draws("theta")
        ax.hist(values, bins=60, range=(0.0, 1.0) if np.ptp(values) > 0.5 else None, density=True,
                color="0.75", label=f"posterior of theta ({self.method})")
        eti = self.ci(prob, "eti")
        ax.axvspan(eti.low, eti.high, color="C0", alpha=0.2, label=f"{prob:.0%} credible (ETI)")
        d = self.data
        try:
            lr = lang_reiczigel_ci(d.p, d.q0, d.q1, d.n, d.m0, d.m1, confidence_level=prob)
        except ValueError:  # judge no better than chance: no frequentist interval
            lr = None
        if lr is not None:
            for bound in lr:
                ax.axvline(bound, color="C3", linestyle="--")
            ax.plot([], [], color="C3", linestyle="--", label=f"{prob:.0%} Lang-Reiczigel")
        ax.set_xlabel("true accuracy theta")
        ax.set_ylabel("density")
        ax.legend(loc="best", fontsize="small")
        return ax

    def __repr__(self) -> str:
        low, high = self.ci()
        return (f"Posterior(method={self.method!r}, theta mean={self.mean():.6g}, "
                f"95% ETI=({low:.6g}, {high:.6g}), data={self.data!r}, flags={self.flags!r})")


def _diagnostics(idata: Any) -> dict[str, float]:
    import arviz as az

    post = idata.posterior[list(_PARAMETERS)]
    rhat = az.rhat(post)
    ess_bulk = az.ess(post, method="bulk")
    ess_tail = az.ess(post, method="tail")
    divergences = 0
    if "sample_stats" in idata.groups() and "diverging" in idata.sample_stats:
        divergences = int(np.asarray(idata.sample_stats["diverging"]).sum())
    def extreme(values: Any, reduce: Any) -> float:
        finite = [float(values[v]) for v in _PARAMETERS if np.isfinite(float(values[v]))]
        return float(reduce(finite)) if finite else float("nan")

    return {"r_hat": extreme(rhat, max), "ess_bulk": extreme(ess_bulk, min),
            "ess_tail": extreme(ess_tail, min), "divergences": divergences}


# -------------------------------------------------------------------------------------------
# the entry point
# -------------------------------------------------------------------------------------------
def posterior(
    data: JudgeData, *, prior: Prior | None = None, method: str = "nuts", draws: int = 2000,
    tune: int = 1000, chains: int = 4, random_seed: Any = None, progressbar: bool = False,
    sampler: str = "pymc", target_accept: float = 0.8, cores: int | None = None,
) -> Posterior:
    """Posterior of the true accuracy theta and the judge's specificity q0 and sensitivity q1.

    Parameters
    ----------
    data : JudgeData
        With ``data.design == "random"`` (labelled items drawn from the test population) the
        random-design model is used: the labelled class count m1 ~ Bin(m0 + m1, theta) also
        informs theta (:mod:`judgecal.bayes.random_design`).
    prior : Prior, optional
        ``Prior()`` (uniform, judge better than chance) by default.
    method : {"nuts", "exact"}
        MCMC on the PyMC model, or deterministic quadrature (``ExactPosterior``).
    draws, tune, chains : int
        Draws kept and tuning steps per chain, number of chains (positive integers). For
        ``method="exact"``, ``draws * chains`` i.i.d. draws fill the InferenceData.
    random_seed : int or numpy.random.Generator, optional
        The only source of randomness; the same seed gives the same draws.
    progressbar : bool
        Only used by ``sampler="nutpie"``; the built-in sampler runs silently.
    sampler : {"pymc", "nutpie"}
        NUTS implementation; nutpie must be installed.
    target_accept : float
        NUTS target acceptance rate (raise it, e.g. to 0.95, if divergences are reported).
    cores : int, optional
        Processes that run the chains of ``sampler="pymc"`` in parallel (default: the number of
        CPUs, at most ``chains``; Linux only, elsewhere chains run one after another). The draws
        are the same for any ``cores``.

    Returns
    -------
    Posterior

    Raises
    ------
    TypeError
        If ``data`` is not a JudgeData or ``prior`` not a Prior.
    ValueError
        For an unknown ``method`` or ``sampler``, non-positive ``draws``/``tune``/``chains``, a
        ``target_accept`` outside (0, 1), or nutpie requested but not installed.
    RuntimeError
        If the sampler fails (explained; no PyMC traceback).

    Warns
    -----
    JudgeCalWarning
        If R-hat > 1.01, an ESS < 400 or any divergence (the result carries the flags).
    """
    if not isinstance(data, JudgeData):
        raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
    if prior is None:
        prior = Prior()
    elif not isinstance(prior, Prior):
        raise TypeError(f"`prior` must be a judgecal.bayes.Prior or None, got "
                        f"{type(prior).__name__}.")
    method = _check_choice(method, "method", ("nuts", "exact"))
    sampler = _check_choice(sampler, "sampler", ("pymc", "nutpie"))
    draws, tune, chains = (_positive_int(v, name) for v, name in
                           ((draws, "draws"), (tune, "tune"), (chains, "chains")))
    target_accept = check_level(target_accept, "target_accept")
    cores = _default_cores() if cores is None else _positive_int(cores, "cores")
    rng = as_generator(random_seed)
    if data.design == "random":  # labelled items drawn from the test population
        from judgecal.bayes.random_design import random_design_posterior

        return random_design_posterior(data, prior, method=method, sampler=sampler, draws=draws,
                                       tune=tune, chains=chains, rng=rng,
                                       target_accept=target_accept, cores=cores)
    if method == "exact":
        return _exact_posterior(data, prior, draws, chains, rng)
    if sampler == "nutpie":
        idata = _nutpie_idata(data, prior, draws, tune, chains, rng, progressbar, target_accept)
        return Posterior.from_idata(idata, data=data, prior=prior, method="nuts")
    engine = compiled_nuts(prior, target_accept=target_accept)
    values, stats = engine.run(data, draws=draws, tune=tune, chains=chains, rng=rng, cores=cores)
    idata = _to_idata(values, data, stats)
    return Posterior.from_idata(idata, data=data, prior=prior, method="nuts")


def _default_cores() -> int:
    import os

    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))


def _to_idata(values: dict[str, np.ndarray], data: JudgeData,
              stats: dict[str, np.ndarray] | None = None) -> az.InferenceData:
    import arviz as az

    groups: dict[str, Any] = {
        "posterior": {name: values[name] for name in POSTERIOR_NAMES},
        "observed_data": {name: np.asarray(getattr(data, name)) for name in OBSERVED_NAMES},
        "constant_data": {name: np.asarray(getattr(data, name)) for name in ("n", "m0", "m1")},
    }
    if stats:
        groups["sample_stats"] = stats
    return az.from_dict(**groups)


def _exact_posterior(data: JudgeData, prior: Prior, draws: int, chains: int,
                     rng: np.random.Generator) -> Posterior:
    from judgecal.bayes.exact import ExactPosterior

    engine = ExactPosterior(data, prior)
    sample = engine.sample(draws * chains, random_seed=rng)
    theta, q0, q1 = (np.asarray(sample[v], dtype=float).reshape(chains, draws)
                     for v in _PARAMETERS)
    values = {"theta": theta, "q0": q0, "q1": q1, "p": theta * q1 + (1 - theta) * (1 - q0),
              "youden": q0 + q1 - 1}
    return Posterior.from_idata(_to_idata(values, data), data=data, prior=prior,
                                method="exact", exact=engine)


def _nutpie_idata(data: JudgeData, prior: Prior, draws: int, tune: int, chains: int,
                  rng: np.random.Generator, progressbar: bool, target_accept: float) -> Any:
    try:
        import nutpie
    except ImportError:
        raise ValueError(
            "`sampler` ('nutpie') needs the optional package nutpie, which is not installed; "
            "install it (pip install nutpie) or use sampler='pymc'."
        ) from None
    from judgecal.bayes.model import DATA_NAMES, build_model

    compiled = _NUTPIE_CACHE.get(prior)
    if compiled is None:
        compiled = nutpie.compile_pymc_model(build_model(data, prior))
        _NUTPIE_CACHE[prior] = compiled
    compiled = compiled.with_data(**{name: getattr(data, key) for key, name in DATA_NAMES.items()})
    try:
        idata = nutpie.sample(compiled, draws=draws, tune=tune, chains=chains,
                              seed=int(rng.integers(2**31)), progress_bar=progressbar,
                              target_accept=target_accept)
    except Exception as error:  # nutpie raises plain RuntimeErrors
        raise RuntimeError(f"nutpie failed for counts {data.to_dict()}: {error}. Try "
                           "sampler='pymc' or method='exact'.") from None
    keep = [name for name in POSTERIOR_NAMES if name in idata.posterior]
    idata.posterior = idata.posterior[keep]
    return idata


_NUTPIE_CACHE: dict[Prior, Any] = {}
