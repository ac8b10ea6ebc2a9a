r"""The hierarchical model of stratified calibration and its result, :class:`StratifiedPosterior`.

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
tau_j, the between-strata spread of logit q_j, has a half-normal prior whose scale ``s`` is the
argument ``prior_scale`` (default 1): tau near 0 is the pooled (one-judge) calibration, a large
tau leaves each stratum on its own calibration. Scale 1 puts prior median 0.67 on tau, i.e.
strata whose q differ by a factor of about two in odds are unsurprising, and strata with tiny
calibration sets are pulled towards the others only as far as the strata with large calibration
sets agree. The better-than-chance constraint (q0_s + q1_s > 1, which identifies the model: the
likelihood is unchanged by swapping the roles of correct and incorrect) is a potential that is
``-inf`` outside, so the prior is the hierarchical one restricted to that region.

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

**One stratum.** Nothing is pooled with one stratum, so :func:`stratified_posterior` delegates
to :func:`judgestats.posterior` (the exact engine, uniform better-than-chance prior) and wraps its
numbers; the result then equals the binary posterior exactly.

The counts live in ``pm.Data`` containers (:data:`DATA_NAMES`), so the model is built and
compiled once per number of strata (:func:`compiled_stratified_nuts`, kept in a caller-held
:class:`~judgestats.bayes.nuts.NutsCache`) and a later fit swaps its counts in
(:func:`set_stratified_data`). This module imports nothing from :mod:`judgestats.stratified`: it
reads the arrays of any object with ``strata``, ``k``, ``n``, ``k0``, ``m0``, ``k1``, ``m1``
(:class:`judgestats.stratified.StratifiedData`). pymc, pytensor and arviz are imported inside the
functions only.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._validate import as_generator, check_level, check_positive_int, check_positive_real
from judgestats.bayes.diagnostics import FLAGS, convergence, convergence_flags
from judgestats.bayes.nuts import CompiledNUTS, NutsCache
from judgestats.exceptions import JudgeStatsWarning
from judgestats.results import FLAG_MESSAGES, ConfidenceInterval, IntervalResult, Result

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import pymc as pm
    from matplotlib.axes import Axes

    from judgestats._typing import SeedLike
    from judgestats.stratified.data import StratifiedData

__all__ = [
    "CHECKED",
    "DATA_NAMES",
    "MU_LOC",
    "MU_SCALE",
    "OUTPUT_NAMES",
    "StratifiedCounts",
    "StratifiedPosterior",
    "build_stratified_model",
    "compiled_stratified_nuts",
    "set_stratified_data",
    "stratified_posterior",
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
    "prior_scale": "tau_scale",
}
#: Variables reported in :attr:`StratifiedPosterior.idata` (the helpers ``z`` are not).
OUTPUT_NAMES = ("theta", "theta_s", "q0", "q1", "youden", "mu", "tau")
#: Variables whose convergence (R-hat, ESS) is checked: the reported quantities.
CHECKED = ("theta", "theta_s", "q0", "q1")
#: Parameters of each stratum, in the order of the summary.
_PARAMETERS = ("theta", "q0", "q1")
_COUNT_NAMES = ("k", "n", "k0", "m0", "k1", "m1")


# -------------------------------------------------------------------------------------------
# counts and the model
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class StratifiedCounts:
    """The per-stratum counts and the prior scale, as the model's containers take them.

    Build with :meth:`from_data` from any object with ``strata`` and the six count arrays
    (:class:`judgestats.stratified.StratifiedData`); the arrays are int64 copies.
    """

    strata: tuple[str, ...]
    counts: dict[str, np.ndarray]
    prior_scale: float = 1.0

    @classmethod
    def from_data(cls, data: Any, prior_scale: float = 1.0) -> StratifiedCounts:
        """Read ``data.strata`` and ``data.k`` ... ``data.m1`` (a TypeError names ``data``)."""
        missing = [name for name in ("strata", *_COUNT_NAMES) if not hasattr(data, name)]
        if missing:
            raise TypeError(
                "`data` must be a judgestats.stratified.StratifiedData (strata and the six count "
                f"arrays), got {type(data).__name__} without {', '.join(missing)}."
            )
        counts = {name: np.array(getattr(data, name), dtype=np.int64) for name in _COUNT_NAMES}
        return cls(tuple(data.strata), counts, float(prior_scale))

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
        out[DATA_NAMES["prior_scale"]] = np.asarray(self.prior_scale, dtype=float)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: the strata, the six count lists and the prior scale."""
        out: dict[str, Any] = {"strata": list(self.strata)}
        out.update({name: self.counts[name].tolist() for name in _COUNT_NAMES})
        out["prior_scale"] = self.prior_scale
        return out


def build_stratified_model(data: Any, prior_scale: float = 1.0) -> pm.Model:
    """Build the hierarchical model of the module docstring.

    Parameters
    ----------
    data : StratifiedData or StratifiedCounts
        The counts per stratum (any object with ``strata`` and the six count arrays); they enter
        through the ``pm.Data`` containers of :data:`DATA_NAMES`, so
        :func:`set_stratified_data` swaps in new counts of the same number of strata.
    prior_scale : float, default 1
        Scale of the half-normal prior of tau_0 and tau_1 (also a container).

    Returns
    -------
    pymc.Model
        Free ``theta_s`` (S), ``mu`` (2: arm q0, q1), ``tau`` (2) and ``z`` (2 x S);
        deterministics ``q0``, ``q1``, ``youden`` (S each) and ``theta`` (the weighted sum);
        the potential ``better_than_chance``; observed ``k``, ``k0``, ``k1``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    counts = data if isinstance(data, StratifiedCounts) else StratifiedCounts.from_data(data)
    counts = StratifiedCounts(counts.strata, counts.counts, float(prior_scale))
    size = counts.size
    with pm.Model() as model:
        box = {name: pm.Data(name, value) for name, value in counts.values().items()}
        theta_s = pm.Uniform("theta_s", 0.0, 1.0, shape=size)
        tau = pm.HalfNormal("tau", box[DATA_NAMES["prior_scale"]], shape=2)
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
    import pymc as pm
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
    import pymc as pm
    import pytensor.tensor as pt

    white = pm.Flat("z_white", shape=(2, size))
    z = tau[:, None] * info * (l_hat - mu[:, None]) / shrink + white / pt.sqrt(shrink)
    pm.Potential("z_prior", pt.sum(-0.5 * z**2 - 0.5 * pt.log(shrink)))
    return z


def set_stratified_data(model: pm.Model, counts: StratifiedCounts) -> None:
    """Swap ``counts`` into a model of :func:`build_stratified_model` with as many strata."""
    import pymc as pm

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
    compilation serves every ``prior_scale``. Its ``run`` takes a :class:`StratifiedCounts`.
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
# the result
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class StratifiedPosterior(Result):
    """Posterior of every stratum's theta_s, q0_s, q1_s and of the overall theta.

    Every row is an :class:`~judgestats.results.IntervalResult` whose ``estimate`` is the
    posterior median and whose ``ci`` is the equal-tailed credible interval at level ``prob``.

    Attributes
    ----------
    strata : tuple of str
        The stratum names.
    theta : IntervalResult
        The overall accuracy theta = sum_s w_s theta_s.
    theta_strata, q0, q1 : tuple of IntervalResult
        Per stratum (in the order of :attr:`strata`): accuracy, specificity, sensitivity.
    weights : tuple of float
        The test shares w_s.
    method : str
        ``"nuts"`` (the hierarchical model, S > 1) or ``"exact"`` (one stratum: the binary
        posterior of :func:`judgestats.posterior`).
    prior_scale : float
        Scale of the half-normal prior of tau.
    prob : float
        Level of the credible intervals.
    inputs : dict
        The counts (``data.to_dict()``).
    diagnostics : dict
        NUTS: max ``r_hat``, min ``ess_bulk`` / ``ess_tail`` over :data:`CHECKED`,
        ``divergences``; one stratum: the binary posterior's diagnostics.
    flags : tuple of str
        NUTS: the convergence keys ``r_hat``, ``low_ess``, ``divergences`` that apply; one
        stratum: the binary posterior's flags.
    idata : arviz.InferenceData
        ``posterior`` with ``theta`` (chain, draw) and ``theta_s``, ``q0``, ``q1``, ``youden``
        (chain, draw, stratum), and for NUTS ``mu``, ``tau`` (chain, draw, arm) and
        ``sample_stats``; one stratum: the exact engine's i.i.d. draws in the same layout.
    """

    title: ClassVar[str] = "judgestats stratified posterior"

    strata: tuple[str, ...]
    theta: IntervalResult
    theta_strata: tuple[IntervalResult, ...]
    q0: tuple[IntervalResult, ...]
    q1: tuple[IntervalResult, ...]
    weights: tuple[float, ...]
    method: str
    prior_scale: float
    prob: float
    inputs: dict[str, Any] = field(repr=False)
    diagnostics: dict[str, float] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    idata: Any = field(default=None, repr=False)

    def stratum(self, name: str) -> dict[str, IntervalResult]:
        """The rows of one stratum: ``{"theta": ..., "q0": ..., "q1": ...}``."""
        if name not in self.strata:
            raise KeyError(f"`name` ({name!r}) is not a stratum; the strata are {self.strata!r}.")
        index = self.strata.index(name)
        return {
            "theta": self.theta_strata[index],
            "q0": self.q0[index],
            "q1": self.q1[index],
        }

    def draws(self, var: str = "theta", stratum: str | None = None) -> np.ndarray:
        """All draws of ``var`` (chains stacked), for one ``stratum`` where it has a stratum dim.

        ``var`` is ``"theta"`` (overall, or stratum s's theta_s when ``stratum`` is given),
        ``"q0"``, ``"q1"`` or ``"youden"`` (``stratum`` required).
        """
        from judgestats._validate import check_choice

        var = check_choice(var, "var", ("theta", "q0", "q1", "youden"))
        posterior = self.idata.posterior
        if stratum is None:
            if var != "theta":
                raise ValueError(f"`stratum` is required for `var` {var!r}; give a stratum name.")
            return np.asarray(posterior["theta"]).reshape(-1)
        self.stratum(stratum)  # raises for an unknown name
        name = "theta_s" if var == "theta" else var
        return np.asarray(posterior[name].sel(stratum=stratum)).reshape(-1)

    @property
    def flag_messages(self) -> list[str]:
        """The flags as sentences, in the posterior's words (:data:`.diagnostics.FLAGS`)."""
        return [FLAGS.get(flag, FLAG_MESSAGES[flag]) for flag in self.flags]

    def _rows(self) -> list[tuple[str, str, str, IntervalResult]]:
        """(label, stratum, parameter, row) in the order of the summary."""
        rows = [("theta", "overall", "theta", self.theta)]
        for index, name in enumerate(self.strata):
            for parameter, values in zip(
                _PARAMETERS, (self.theta_strata, self.q0, self.q1), strict=True
            ):
                rows.append((f"{parameter}[{name}]", name, parameter, values[index]))
        return rows

    def summary(self) -> pd.DataFrame:
        """One row per quantity: overall theta, then theta, q0, q1 of each stratum.

        Columns: ``stratum``, ``parameter``, ``weight`` (w_s on the theta rows, 1 on the
        overall row, NaN on q rows), ``estimate`` (posterior median), ``low``, ``high``
        (equal-tailed interval at :attr:`prob`) and ``width``; index ``quantity``.
        """
        import pandas as pd

        weights = dict(zip(self.strata, self.weights, strict=True))
        records = []
        for label, stratum, parameter, row in self._rows():
            weight = 1.0 if stratum == "overall" else weights[stratum]
            records.append(
                {
                    "quantity": label,
                    "stratum": stratum,
                    "parameter": parameter,
                    "weight": weight if parameter == "theta" else float("nan"),
                    "estimate": row.estimate,
                    "low": row.low,
                    "high": row.high,
                    "width": row.width,
                }
            )
        return pd.DataFrame.from_records(records, index="quantity")

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict: inputs, prior scale, every row, diagnostics and flags."""
        return {
            "method": self.method,
            "prob": self.prob,
            "prior_scale": self.prior_scale,
            "inputs": self.inputs,
            "weights": list(self.weights),
            "theta": self.theta.to_dict(),
            "strata": {
                name: {key: row.to_dict() for key, row in self.stratum(name).items()}
                for name in self.strata
            },
            "diagnostics": {
                key: (int(v) if isinstance(v, (int, np.integer)) else float(v))
                for key, v in self.diagnostics.items()
            },
            "flags": {
                flag: message for flag, message in zip(self.flags, self.flag_messages, strict=True)
            },
        }

    def plot(self, ax: Axes | None = None) -> Axes:
        """Forest plot of each stratum's theta_s and the overall theta (median and interval)."""
        from judgestats.results import forest_plot

        frame = self.summary()
        frame = frame[frame["parameter"] == "theta"]
        frame = frame.iloc[list(range(1, len(frame))) + [0]]  # strata first, overall last
        return forest_plot(frame[["estimate", "low", "high"]], ax=ax, title=self.title)

    def __str__(self) -> str:
        level = f"{100 * self.prob:g}%"
        lines = [
            f"judgestats stratified posterior (method {self.method}, {level} equal-tailed "
            f"credible intervals, prior scale of tau {self.prior_scale:g})",
            f"  {'':<24}{'weight':>8}{'median':>9}{'low':>9}{'high':>9}",
        ]
        summary = self.summary()
        for label, row in summary.iterrows():
            weight = "" if math.isnan(row["weight"]) else f"{row['weight']:8.4f}"
            lines.append(
                f"  {label!s:<24}{weight:>8}"
                + "".join(f"{row[c]:9.4f}" for c in ("estimate", "low", "high"))
            )
        lines += [
            f"  warning ({flag}): {message}"
            for flag, message in zip(self.flags, self.flag_messages, strict=True)
        ]
        return "\n".join(lines)


# -------------------------------------------------------------------------------------------
# the entry point
# -------------------------------------------------------------------------------------------
def stratified_posterior(
    data: StratifiedData,
    *,
    prior_scale: float = 1.0,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float = 0.9,
    prob: float = 0.95,
    random_seed: SeedLike = None,
    progressbar: bool | None = None,
    compiled: NutsCache | None = None,
) -> StratifiedPosterior:
    """Posterior of the overall accuracy under stratified calibration, strata partially pooled.

    Parameters
    ----------
    data : StratifiedData
        The six counts per stratum (:class:`judgestats.stratified.StratifiedData`).
    prior_scale : float, default 1
        Scale of the half-normal prior of tau_0, tau_1, the between-strata spread of logit q0
        and logit q1 (module docstring): smaller pools harder.
    draws, tune, chains : int
        NUTS draws kept and tuning steps per chain, and chains (with one stratum: the size of
        the exact engine's :attr:`~StratifiedPosterior.idata`).
    target_accept : float, default 0.9
        NUTS target acceptance rate (raise it if divergences are reported).
    prob : float, default 0.95
        Level of the equal-tailed credible intervals.
    random_seed : int or numpy.random.Generator, optional
        The only source of randomness; the same seed gives the same draws.
    progressbar : bool, optional
        Draw a progress bar of the NUTS steps on stderr (None: only on a terminal, ``CI`` unset).
    compiled : NutsCache, optional
        A caller-held cache of compiled samplers (one per number of strata and
        ``target_accept``), reused across fits.

    Returns
    -------
    StratifiedPosterior
        With one stratum, the numbers of :func:`judgestats.posterior` (exact engine) on that
        stratum's counts: nothing is pooled.

    Raises
    ------
    TypeError
        If ``data`` lacks the strata and counts, ``prior_scale`` is not a number, ``compiled``
        is not a NutsCache, or a count option is not an integer.
    ValueError
        For a ``prior_scale`` that is not finite and positive, non-positive ``draws``, ``tune``
        or ``chains``, or a ``target_accept`` or ``prob`` outside (0, 1).
    RuntimeError
        If NUTS fails (explained; no PyMC traceback).

    Warns
    -----
    JudgeStatsWarning
        Once, listing the flags that apply (convergence: ``r_hat``, ``low_ess``,
        ``divergences``).
    """
    prior_scale = check_positive_real(
        prior_scale,
        "prior_scale",
        "the scale of the half-normal prior of the between-strata spread tau; 1 by default",
    )
    counts = StratifiedCounts.from_data(data, prior_scale)
    draws, tune, chains = (
        check_positive_int(value, name)
        for value, name in ((draws, "draws"), (tune, "tune"), (chains, "chains"))
    )
    target_accept = check_level(target_accept, "target_accept")
    prob = check_level(prob, "prob")
    if compiled is not None and not isinstance(compiled, NutsCache):
        raise TypeError(
            f"`compiled` must be a judgestats.bayes.nuts.NutsCache or None, got "
            f"{type(compiled).__name__}."
        )
    rng = as_generator(random_seed)
    inputs = data.to_dict() if callable(getattr(data, "to_dict", None)) else counts.to_dict()
    if counts.size == 1:
        return _single_stratum(data, counts, draws, chains, prob, rng, inputs)
    engine = compiled_stratified_nuts(counts.size, target_accept=target_accept, cache=compiled)
    values, stats = engine.run(
        counts, draws=draws, tune=tune, chains=chains, rng=rng, progressbar=progressbar
    )
    idata = _to_idata(values, stats, counts)
    diagnostics = convergence(idata, CHECKED)
    flags = convergence_flags(diagnostics)
    if flags:
        details = "; ".join(f"{flag}: {FLAGS[flag]}" for flag in flags)
        warnings.warn(
            f"check this stratified posterior -- {details}.", JudgeStatsWarning, stacklevel=2
        )
    return _result(idata, counts, "nuts", prob, inputs, diagnostics, flags)


def _single_stratum(
    data: Any,
    counts: StratifiedCounts,
    draws: int,
    chains: int,
    prob: float,
    rng: np.random.Generator,
    inputs: dict[str, Any],
) -> StratifiedPosterior:
    """One stratum: the exact binary posterior, its numbers wrapped row by row."""
    import arviz as az

    from judgestats.bayes.binary_posterior import posterior

    post = posterior(data.stratum(counts.strata[0]), draws=draws, chains=chains, random_seed=rng)
    method = "exact_posterior_median+eti"
    rows = {}
    for var in _PARAMETERS:
        low, high = post.ci(prob, "eti", var)
        rows[var] = IntervalResult(
            float(post.quantile(0.5, var)), ConfidenceInterval(low, high), prob, method
        )
    source = post.idata.posterior  # type: ignore[attr-defined]
    posterior_group = {
        "theta": np.asarray(source["theta"]),
        "theta_s": np.asarray(source["theta"])[..., None],
        **{var: np.asarray(source[var])[..., None] for var in ("q0", "q1", "youden")},
    }
    idata = az.from_dict(
        posterior=posterior_group,
        observed_data={name: counts.counts[name] for name in ("k", "k0", "k1")},
        constant_data={name: counts.counts[name] for name in ("n", "m0", "m1")},
        coords={"stratum": list(counts.strata)},
        dims=_DIMS,
    )
    return StratifiedPosterior(
        strata=counts.strata,
        theta=rows["theta"],
        theta_strata=(rows["theta"],),
        q0=(rows["q0"],),
        q1=(rows["q1"],),
        weights=(1.0,),
        method="exact",
        prior_scale=counts.prior_scale,
        prob=prob,
        inputs=inputs,
        diagnostics=dict(post.diagnostics),
        flags=post.flags,
        idata=idata,
    )


_DIMS = {
    **{name: ["stratum"] for name in ("theta_s", "q0", "q1", "youden", "k", "k0", "k1")},
    **{name: ["stratum"] for name in ("n", "m0", "m1")},
    "mu": ["arm"],
    "tau": ["arm"],
}


def _to_idata(
    values: dict[str, np.ndarray], stats: dict[str, np.ndarray], counts: StratifiedCounts
) -> Any:
    """InferenceData: posterior (dims stratum, arm), sample stats, observed and constant data."""
    import arviz as az

    return az.from_dict(
        posterior={name: values[name] for name in OUTPUT_NAMES},
        sample_stats=stats,
        observed_data={name: counts.counts[name] for name in ("k", "k0", "k1")},
        constant_data={name: counts.counts[name] for name in ("n", "m0", "m1")},
        coords={"stratum": list(counts.strata), "arm": ["q0", "q1"]},
        dims=_DIMS,
    )


def _result(
    idata: Any,
    counts: StratifiedCounts,
    method: str,
    prob: float,
    inputs: dict[str, Any],
    diagnostics: dict[str, float],
    flags: tuple[str, ...],
) -> StratifiedPosterior:
    """Median and equal-tailed interval of every reported quantity, as IntervalResults."""
    posterior = idata.posterior
    levels = [0.5, (1 - prob) / 2, (1 + prob) / 2]
    label = "hierarchical_posterior_median+eti"

    def row(values: Any) -> IntervalResult:
        median, low, high = (float(v) for v in np.quantile(np.asarray(values).ravel(), levels))
        return IntervalResult(median, ConfidenceInterval(low, high), prob, label)

    def per_stratum(name: str) -> tuple[IntervalResult, ...]:
        return tuple(row(posterior[name].sel(stratum=s)) for s in counts.strata)

    return StratifiedPosterior(
        strata=counts.strata,
        theta=row(posterior["theta"]),
        theta_strata=per_stratum("theta_s"),
        q0=per_stratum("q0"),
        q1=per_stratum("q1"),
        weights=tuple(float(w) for w in counts.weights),
        method=method,
        prior_scale=counts.prior_scale,
        prob=prob,
        inputs=inputs,
        diagnostics=diagnostics,
        flags=flags,
        idata=idata,
    )
