"""The K-class posterior: :func:`kclass_posterior` and its result, :class:`KClassPosterior`.

The model (true class shares pi, the judge's confusion matrix C, the identifiability set D and
the default prior) is written out in :mod:`judgestats.bayes.kclass_model`. ``method=`` picks the
engine:

``"importance"``
    Importance sampling (K <= 5; :mod:`judgestats.bayes.kclass_importance`): weighted means
    and weighted quantiles, with the effective sample size and the weights' Pareto k-hat.
``"nuts"``
    PyMC's NUTS on :func:`judgestats.bayes.kclass_model.build_kclass_model` (any K).
``"exact"``
    K = 2 with alpha = beta = 1: the counts are a :class:`~judgestats.JudgeData` and
    :func:`judgestats.posterior` (deterministic integration) gives the posterior; the result is
    built from its numbers.
``"auto"`` (the default)
    ``"exact"`` where it applies, ``"importance"`` up to K = 5, ``"nuts"`` beyond.

It sits above :mod:`judgestats.bayes`, which imports nothing from :mod:`judgestats.kclass`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._validate import (
    as_generator,
    check_choice,
    check_draws,
    check_flag,
    check_level,
    check_positive_real,
)
from judgestats.bayes.diagnostics import TARGET_ACCEPT
from judgestats.bayes.kclass_importance import (
    PARETO_K_LIMIT,
    importance_draws,
    pareto_k,
    weighted_interval,
)
from judgestats.bayes.kclass_model import kclass_idata, sample_kclass_nuts
from judgestats.bayes.priors import DirichletPrior, checked_prior
from judgestats.exceptions import JudgeStatsWarning
from judgestats.kclass.data import KClassData
from judgestats.kclass.functionals import (
    check_weights,
    mean_score_weights,
    share_label,
    share_weights,
    win_rate_label,
    win_rate_weights,
)
from judgestats.kclass.matrix import DOMINANCE_RULE, dominance_violation
from judgestats.results import (
    FLAG_MESSAGES,
    ConfidenceInterval,
    IntervalResult,
    Result,
    register_flags,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from judgestats.bayes.nuts import NutsCache

__all__ = [
    "KCLASS_POSTERIOR_FLAGS",
    "MAX_IMPORTANCE_K",
    "METHODS",
    "KClassPosterior",
    "kclass_posterior",
]

#: The engines of :func:`kclass_posterior` (its ``method=``).
METHODS = ("auto", "exact", "importance", "nuts")
#: Largest K importance sampling accepts (the proposal degrades as K grows).
MAX_IMPORTANCE_K = 5

KCLASS_POSTERIOR_FLAGS = register_flags(
    {
        "low_importance_ess": "the importance sampler's effective sample size is below the "
        "requested minimum, so its means and credible intervals carry Monte Carlo error; raise "
        "`proposals`, or use method='nuts'",
        "importance_heavy_tail": "the importance weights are heavy-tailed (Pareto k-hat above "
        "0.7), so the effective sample size and the intervals are unreliable; use "
        "method='nuts'",
    }
)


# -------------------------------------------------------------------------------------------
# the result
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class KClassPosterior(Result):
    """Posterior of the true class shares pi and the confusion matrix C of a K-class judge.

    Every share row is an :class:`~judgestats.results.IntervalResult` whose ``estimate`` is the
    posterior mean and whose ``ci`` is the equal-tailed credible interval at level ``prob``.

    Attributes
    ----------
    classes : tuple
        The class names.
    shares : tuple of IntervalResult
        Posterior mean and interval of each pi_k, in class order.
    sd : tuple of float
        Posterior standard deviation of each pi_k.
    confusion_mean : ndarray, shape (K, K)
        Posterior mean of C (rows = true class, columns = judged class); read-only.
    method : str
        The engine: ``"exact"``, ``"importance"`` or ``"nuts"``.
    prior : DirichletPrior
        Dirichlet concentrations of pi and of the rows of C (``beta`` resolved for K).
    prob : float
        Level of the credible intervals.
    inputs : dict
        The counts (``data.to_dict()``).
    ess : float
        Effective sample size: importance sampling (sum w)^2 / sum w^2; NUTS the smallest bulk
        or tail ESS; exact: ``inf``.
    diagnostics : dict
        Importance sampling: ``proposals_tried``, ``acceptance_d`` (share of proposals in D),
        ``acceptance_simplex`` (share of those giving pi on the simplex), ``pareto_k`` (the
        weights' tail shape); NUTS: ``r_hat``,
        ``ess_bulk``, ``ess_tail``, ``divergences``; exact: the binary posterior's.
    flags : tuple of str
        ``low_importance_ess``, ``importance_heavy_tail``; NUTS ``r_hat``, ``low_ess``,
        ``divergences``; exact: the binary posterior's flags.
    idata : arviz.InferenceData
        ``posterior`` with ``pi`` (chain, draw, class), ``C`` (chain, draw, true, judged) and
        ``p``. For importance sampling it is one chain of ``draws`` draws resampled with
        probabilities proportional to the weights (with replacement), for plots and ArviZ
        tools; the numbers of this result use the weighted draws themselves.
    """

    title: ClassVar[str] = "judgestats K-class posterior"

    classes: tuple[Any, ...]
    shares: tuple[IntervalResult, ...]
    sd: tuple[float, ...]
    confusion_mean: np.ndarray
    method: str
    prior: DirichletPrior
    prob: float
    inputs: dict[str, Any] = field(repr=False)
    ess: float = math.inf
    diagnostics: dict[str, float] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    idata: Any = field(default=None, repr=False)
    _pi: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]
    _weights: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]
    _c: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]
    _exact: Any = field(default=None, repr=False)

    @property
    def row_method(self) -> str:
        """The method label of the rows: ``"<method>_posterior_mean+eti"``."""
        return f"{self.method}_posterior_mean+eti"

    def weighted_draws(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The draws behind the numbers: pi (S, K), C (S, K, K) and their weights (S,).

        Importance sampling: the proposals on the simplex with their (unnormalised) weights;
        NUTS: every draw, weight 1; exact (K = 2): the draws of :attr:`idata`, weight 1 (the
        numbers themselves come from the exact integration).
        """
        if self._exact is not None:
            size = len(self.classes)
            pi = np.asarray(self.idata.posterior["pi"]).reshape(-1, size)
            c = np.asarray(self.idata.posterior["C"]).reshape(-1, size, size)
            return pi, c, np.ones(len(pi))
        return self._pi, self._c, self._weights

    # -- functionals ---------------------------------------------------------------------------
    def functional(
        self, weights: Any, *, prob: float | None = None, name: str | None = None
    ) -> IntervalResult:
        """Posterior mean and equal-tailed credible interval of ``weights . pi``.

        Parameters
        ----------
        weights : sequence of float or mapping
            One weight per class (class order), or a mapping from class names to weights.
        name : str, optional
            A label kept in the result's ``method`` (e.g. ``"mean score"``).
        prob : float, optional
            Level of the interval (default: this posterior's).

        Returns
        -------
        IntervalResult
            Importance sampling: weighted mean and weighted quantiles; NUTS: plain ones; exact
            (K = 2): a0 + (a1 - a0) theta, whose quantiles are theta's (mapped, in order).
        """
        a = check_weights(self.classes, weights)
        level = self.prob if prob is None else check_level(prob, "prob")
        method = self.row_method if name is None else f"{name}: {self.row_method}"
        if self._exact is not None:
            return _exact_functional(self._exact, a, level, method, self.flags)
        row, _ = weighted_interval(self._pi @ a, self._weights, level, method, self.flags)
        return row

    def share(self, classes: Any, *, prob: float | None = None) -> IntervalResult:
        """The share of one class, or the summed share of several."""
        a = share_weights(self.classes, classes)
        return self.functional(a, prob=prob, name=share_label(self.classes, a))

    def mean_score(self, scores: Any = None, *, prob: float | None = None) -> IntervalResult:
        """The mean score: ``scores`` per class (default: numeric classes are the scores)."""
        a = mean_score_weights(self.classes, scores)
        return self.functional(a, prob=prob, name="mean score")

    def win_rate(self, win: Any, tie: Any = None, *, prob: float | None = None) -> IntervalResult:
        """The win rate of the class ``win``, a ``tie`` counting half."""
        label = win_rate_label(win, tie)
        return self.functional(win_rate_weights(self.classes, win, tie), prob=prob, name=label)

    # -- the contract --------------------------------------------------------------------------
    def summary(self) -> pd.DataFrame:
        """One row per class, indexed by ``class``.

        Columns: ``estimate`` (posterior mean), ``sd``, ``low``, ``high``, ``width`` and
        ``judged_as_itself`` (posterior mean of C[k, k]).
        """
        import pandas as pd

        records = [
            {
                "class": str(name),
                "estimate": row.estimate,
                "sd": sd,
                "low": row.low,
                "high": row.high,
                "width": row.width,
                "judged_as_itself": float(self.confusion_mean[k, k]),
            }
            for k, (name, row, sd) in enumerate(
                zip(self.classes, self.shares, self.sd, strict=True)
            )
        ]
        return pd.DataFrame.from_records(records, index="class")

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict: inputs, method, prior, every share, C's mean, ESS, flags."""
        return {
            "method": self.method,
            "prob": self.prob,
            "prior": {"alpha": self.prior.alpha, "beta": self.prior.beta},
            "inputs": self.inputs,
            "classes": [c if isinstance(c, str) else int(c) for c in self.classes],
            "shares": [row.to_dict() for row in self.shares],
            "sd": list(self.sd),
            "confusion_mean": self.confusion_mean.tolist(),
            "ess": None if math.isinf(self.ess) else float(self.ess),
            "diagnostics": {
                key: (int(v) if isinstance(v, (int, np.integer)) else float(v))
                for key, v in self.diagnostics.items()
            },
            "flags": {flag: FLAG_MESSAGES[flag] for flag in self.flags},
        }

    def plot(self, ax: Axes | None = None) -> Axes:
        """Forest plot of the class shares (mean and credible interval)."""
        from judgestats.results import forest_plot

        frame = self.summary()[["estimate", "low", "high"]]
        return forest_plot(frame, ax=ax, title=self.title)

    def __str__(self) -> str:
        level = f"{100 * self.prob:g}%"
        ess = "" if math.isinf(self.ess) else f", ESS {self.ess:.0f}"
        lines = [
            f"judgestats K-class posterior (method {self.method}, {level} equal-tailed credible "
            f"intervals{ess})",
            f"  {'class':<16}{'mean':>9}{'sd':>9}{'low':>9}{'high':>9}{'C[k,k]':>9}",
        ]
        for label, row in self.summary().iterrows():
            lines.append(
                f"  {label!s:<16}"
                + "".join(
                    f"{row[c]:9.4f}" for c in ("estimate", "sd", "low", "high", "judged_as_itself")
                )
            )
        lines += [f"  warning ({f}): {FLAG_MESSAGES[f]}" for f in self.flags]
        return "\n".join(lines)


def _exact_functional(
    post: Any, a: np.ndarray, prob: float, method: str, flags: tuple[str, ...]
) -> IntervalResult:
    """The functional a . pi = a0 + (a1 - a0) theta under the exact binary posterior."""
    slope = float(a[1] - a[0])
    low, high = post.quantile([(1 - prob) / 2, (1 + prob) / 2], "theta")
    ends = sorted((a[0] + slope * low, a[0] + slope * high))
    estimate = float(a[0] + slope * post.mean("theta"))
    return IntervalResult(
        estimate, ConfidenceInterval(float(ends[0]), float(ends[1])), prob, method, flags
    )


def _frozen(array: Any) -> np.ndarray:
    out = np.array(array, dtype=float)
    out.setflags(write=False)
    return out


# -------------------------------------------------------------------------------------------
# the entry point
# -------------------------------------------------------------------------------------------
def _check_data(data: Any) -> KClassData:
    if not isinstance(data, KClassData):
        raise TypeError(
            f"`data` must be a judgestats.kclass.KClassData, got {type(data).__name__}."
        )
    return data


def _choose_method(method: str, data: KClassData, prior: DirichletPrior) -> str:
    size, alpha, beta = data.size, prior.alpha, prior.beta
    binary = size == 2 and alpha == 1.0 and beta == 1.0
    if method == "auto":
        if binary:
            return "exact"
        return "importance" if size <= MAX_IMPORTANCE_K else "nuts"
    if method == "exact" and not binary:
        raise ValueError(
            f"`method` ('exact') needs K = 2 classes and alpha = beta = 1 (the binary model); "
            f"got K = {size}, alpha = {alpha:g}, beta = {beta:g}. Use 'importance' or 'nuts'."
        )
    if method == "importance" and size > MAX_IMPORTANCE_K:
        raise ValueError(
            f"`method` ('importance') is offered for K <= {MAX_IMPORTANCE_K} classes only (its "
            f"proposal degrades as K grows); these counts have K = {size}: use method='nuts'."
        )
    return method


def kclass_posterior(
    data: KClassData,
    *,
    prior: DirichletPrior | None = None,
    method: str = "auto",
    draws: int = 4000,
    proposals: int = 200_000,
    min_ess: float = 1000.0,
    prob: float = 0.95,
    random_seed: Any = None,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float = TARGET_ACCEPT,
    progressbar: bool | None = None,
    compiled: NutsCache | None = None,
) -> KClassPosterior:
    """Posterior of the true class shares of a K-class judge (module docstring).

    Parameters
    ----------
    data : KClassData
        The test verdict counts and the calibration confusion counts.
    prior : DirichletPrior, optional
        ``DirichletPrior()`` by default: alpha = 1 (uniform on the simplex) for pi, beta = 2 / K
        for every row of C, two prior pseudo-items per row (1 at K = 2: the binary uniform
        prior; see :mod:`judgestats.bayes.kclass_model`).
    method : {"auto", "exact", "importance", "nuts"}, default "auto"
        "auto": the exact binary engine at K = 2 with alpha = beta = 1 (so K = 2 reproduces
        :func:`judgestats.posterior`), importance sampling for K <= 5, NUTS beyond.
    draws : int, default 4000
        Size of :attr:`KClassPosterior.idata`: importance sampling's weighted resample, NUTS's
        draws per chain, the exact engine's draws (over its chains).
    proposals : int, default 200000
        Importance sampling: proposal draws of C inside D that make the weighted sample.
    min_ess : float, default 1000
        Importance sampling: the ``low_importance_ess`` flag is raised below this ESS.
    prob : float, default 0.95
        Level of the equal-tailed credible intervals.
    random_seed : int or numpy.random.Generator, optional
        The only source of randomness; the same seed gives the same numbers.
    tune, chains, target_accept, progressbar, compiled
        NUTS options (:func:`judgestats.bayes.binary_nuts.sample_nuts`; ``target_accept`` 0.9 as on
        every NUTS path); ``chains`` also shapes the exact engine's idata.

    Returns
    -------
    KClassPosterior

    Raises
    ------
    TypeError
        If ``data`` is not a KClassData, ``prior`` not a DirichletPrior, or an option has the
        wrong type (``progressbar`` not True, False or None).
    ValueError
        For a bad method (or one that does not fit K), non-positive draws, proposals, min_ess,
        a ``prob`` outside (0, 1), or counts that contradict the identifiability constraint (no
        proposal in D or on the simplex).

    Warns
    -----
    JudgeStatsWarning
        Once, listing the flags that apply.
    """
    data = _check_data(data)
    prior = checked_prior(prior, DirichletPrior).for_classes(data.size)
    method = check_choice(method, "method", METHODS)
    draws, chains, proposals, tune = check_draws(draws, chains, proposals=proposals, tune=tune)
    min_ess = check_positive_real(min_ess, "min_ess")
    progressbar = check_flag(progressbar, "progressbar", allow_none=True)
    prob = check_level(prob, "prob")
    target_accept = check_level(target_accept, "target_accept")
    rng = as_generator(random_seed)
    method = _choose_method(method, data, prior)
    common = {"data": data, "prior": prior, "prob": prob}
    if method == "exact":
        result = _exact(draws, chains, rng, **common)
    elif method == "importance":
        result = _importance(draws, proposals, min_ess, rng, **common)
    else:
        result = _nuts(draws, tune, chains, target_accept, progressbar, compiled, rng, **common)
    if result.flags:
        details = "; ".join(f"{f}: {FLAG_MESSAGES[f]}" for f in result.flags)
        warnings.warn(
            f"check this K-class posterior -- {details}.", JudgeStatsWarning, stacklevel=2
        )
    return result


def _from_draws(
    pi: np.ndarray,
    c: np.ndarray,
    weights: np.ndarray,
    *,
    data: KClassData,
    prior: DirichletPrior,
    prob: float,
    method: str,
    **fields: Any,
) -> KClassPosterior:
    """The result from (weighted) draws of pi (S, K) and C (S, K, K)."""
    flags = fields.get("flags", ())
    label = f"{method}_posterior_mean+eti"
    rows = [weighted_interval(pi[:, k], weights, prob, label, flags) for k in range(data.size)]
    mean_c = np.tensordot(weights, c, axes=1) / weights.sum()
    return KClassPosterior(
        classes=data.classes,
        shares=tuple(row for row, _ in rows),
        sd=tuple(sd for _, sd in rows),
        confusion_mean=_frozen(mean_c),
        method=method,
        prior=prior,
        prob=prob,
        inputs=data.to_dict(),
        _pi=pi,
        _weights=weights,
        _c=c,
        **fields,
    )


def _no_dominant_draw(data: KClassData, prior: DirichletPrior, tried: int) -> ValueError:
    """The error when no proposal of C lands in D, naming a pair of classes that breaks it."""
    rows = data.confusion.astype(float)
    beta = prior.beta
    rates = (rows + beta) / (rows + beta).sum(axis=1, keepdims=True)
    pair = dominance_violation(rates)
    where = (
        ""
        if pair is None
        else f" (e.g. true class {data.classes[pair[0]]!r} is judged "
        f"{data.classes[pair[1]]!r} at least as often as true class "
        f"{data.classes[pair[1]]!r} is)"
    )
    return ValueError(
        f"`data`: none of {tried} draws of the judge's confusion matrix from its calibration "
        f"posterior is diagonally dominant{where}; the model's identifiability constraint "
        f"needs {DOMINANCE_RULE}: the calibration contradicts it. Check the confusion counts "
        "(rows = true class, columns = judged class)."
    )


def _importance(
    draws: int, proposals: int, min_ess: float, rng: np.random.Generator, **common: Any
) -> KClassPosterior:
    data = common["data"]
    sample = importance_draws(data, common["prior"], proposals, rng)
    if sample.in_d == 0:
        raise _no_dominant_draw(data, common["prior"], sample.tried)
    w = sample.weights
    ess = float(w.sum() ** 2 / (w @ w))
    tail = pareto_k(w)
    flags = tuple(
        flag
        for flag, raised in (
            ("low_importance_ess", ess < min_ess),
            ("importance_heavy_tail", tail > PARETO_K_LIMIT),
        )
        if raised
    )
    diagnostics = {
        "proposals_tried": sample.tried,
        "acceptance_d": sample.found / sample.tried,
        "acceptance_simplex": len(w) / sample.in_d,
        "pareto_k": tail,
    }
    picks = rng.choice(len(w), size=draws, replace=True, p=w / w.sum())
    idata = kclass_idata(sample.pi[picks][None], sample.c[picks][None], data)
    return _from_draws(
        sample.pi,
        sample.c,
        w,
        method="importance",
        ess=ess,
        diagnostics=diagnostics,
        flags=flags,
        idata=idata,
        **common,
    )


def _nuts(
    draws: int,
    tune: int,
    chains: int,
    target_accept: float,
    progressbar: bool | None,
    compiled: NutsCache | None,
    rng: np.random.Generator,
    **common: Any,
) -> KClassPosterior:
    sample = sample_kclass_nuts(
        common["data"],
        common["prior"],
        draws=draws,
        tune=tune,
        chains=chains,
        target_accept=target_accept,
        progressbar=progressbar,
        compiled=compiled,
        rng=rng,
    )
    diagnostics = sample.diagnostics
    return _from_draws(
        sample.pi,
        sample.c,
        np.ones(len(sample.pi)),
        method="nuts",
        ess=min(diagnostics["ess_bulk"], diagnostics["ess_tail"]),
        diagnostics=diagnostics,
        flags=sample.flags,
        idata=sample.idata,
        **common,
    )


def _exact(draws: int, chains: int, rng: np.random.Generator, **common: Any) -> KClassPosterior:
    from judgestats.bayes.binary_posterior import posterior

    data, prob = common["data"], common["prob"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # re-issued once, for this result
        post = posterior(
            data.to_judge_data(), draws=max(draws // chains, 1), chains=chains, random_seed=rng
        )
    method = "exact_posterior_mean+eti"
    theta = _exact_functional(post, np.array([0.0, 1.0]), prob, method, post.flags)
    other = _exact_functional(post, np.array([1.0, 0.0]), prob, method, post.flags)
    q0, q1 = post.mean("q0"), post.mean("q1")
    source = post.idata.posterior  # type: ignore[attr-defined]
    t, a, b = (np.asarray(source[v]) for v in ("theta", "q0", "q1"))
    pi = np.stack([1.0 - t, t], axis=-1)
    c = np.stack([np.stack([a, 1.0 - a], -1), np.stack([1.0 - b, b], -1)], axis=-2)
    sd = post.sd("theta")
    return KClassPosterior(
        classes=data.classes,
        shares=(other, theta),
        sd=(sd, sd),
        confusion_mean=_frozen([[q0, 1.0 - q0], [1.0 - q1, q1]]),
        method="exact",
        prior=common["prior"],
        prob=prob,
        inputs=data.to_dict(),
        diagnostics=dict(post.diagnostics),
        flags=tuple(post.flags),
        idata=kclass_idata(pi, c, data),
        _exact=post,
    )
