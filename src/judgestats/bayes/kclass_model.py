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

**The default prior.** alpha = 1 (uniform on the simplex) and beta = 2 / K: every row of C
carries two prior pseudo-items spread evenly over its K cells, the budget of the closed form's
smoothing (:mod:`judgestats.kclass.matrix`); at K = 2 it is the binary model's uniform prior. A
uniform prior on every row (beta = 1) would add K pseudo-items per row and pull a K = 5 rubric
judge measured on 30 items per score noticeably towards guessing, which pushes the corrected
shares outwards: in ``benchmarks/kclass_coverage.py --posterior`` the mean score's credible
interval covered 0.83 with beta = 1 and 0.94 with beta = 2 / K on the same 200 datasets.

**Importance sampling** (``engine="importance"``, K <= 5; exact in distribution as the number of
draws grows). The proposal draws C and p independently:
C_i ~ Dirichlet(beta + confusion_i) (the conjugate calibration posterior; draws outside D are
discarded, so C has the density prior x calibration likelihood on D) and
p ~ Dirichlet(1 + test) (the flat-prior posterior of the judged shares); then
:math:`\pi = C^{-\top} p`. Because C 1 = 1, the map :math:`\pi \mapsto C^\top \pi` keeps the
sum of a vector, so it maps the simplex's plane onto itself and its Jacobian there is the
determinant of C restricted to the sum-zero subspace, which equals det C (the induced map on
the quotient by that subspace is the identity). The proposal density of (C, pi) is therefore
q(C) Dir(C^T pi; 1 + test) |det C|, the target density is
q(C) prod_j p_j^test_j prod_i pi_i^(alpha - 1) [prod_i pi_i^m_i] on the simplex, and the
importance weight is

.. math::
    w = \mathbf 1[\pi \in \Delta_K] \prod_i \pi_i^{\alpha - 1}
        \prod_i \pi_i^{m_i [\text{random design}]} \big/ |\det C|.

Weighted means and quantiles (:func:`weighted_quantile`) of the draws estimate the posterior;
their precision is set by the effective sample size (sum w)^2 / sum w^2, reported as ``ess``
and flagged (``low_importance_ess``) below ``min_ess``. The weights' tail is checked too:
the Pareto shape k-hat of the largest weights (Pareto-smoothed importance sampling, Vehtari et
al., "Pareto smoothed importance sampling", arXiv 1507.02646, computed by
``arviz.psislw``) is reported as ``diagnostics["pareto_k"]`` and flagged
(``importance_heavy_tail``) above 0.7, where the weights' variance is so large that the ESS
itself is unreliable. Draws are made in chunks of
:data:`CHUNK` to bound memory, from one seeded generator.

**NUTS** (``engine="nuts"``, any K): PyMC's NUTS on :func:`build_kclass_model`, compiled by
:func:`judgestats.bayes.nuts.compile_nuts`; D enters as a ``pm.Potential`` (0 inside, -inf
outside) and C starts inside D.

**Exact** (``engine="auto"`` at K = 2 with alpha = beta = 1): the counts are a
:class:`~judgestats.JudgeData` and :func:`judgestats.posterior` (deterministic integration)
gives the posterior; the result is built from its numbers.

Like :mod:`judgestats.bayes.stratified_model`, this module is re-exported by its subpackage
(:mod:`judgestats.kclass`), so it imports from :mod:`judgestats.kclass` inside functions only.

pymc, pytensor and arviz are imported inside the functions only.
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
    check_level,
    check_positive_int,
    check_positive_real,
)
from judgestats.exceptions import JudgeStatsWarning
from judgestats.results import (
    FLAG_MESSAGES,
    ConfidenceInterval,
    IntervalResult,
    Result,
    register_flags,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import pymc as pm
    from matplotlib.axes import Axes

    from judgestats.bayes.nuts import NutsCache
    from judgestats.kclass.data import KClassData

__all__ = [
    "CHUNK",
    "ENGINES",
    "KCLASS_POSTERIOR_FLAGS",
    "MAX_IMPORTANCE_K",
    "PARETO_K_LIMIT",
    "KClassPosterior",
    "build_kclass_model",
    "kclass_posterior",
    "weighted_quantile",
]

#: The engines of :func:`kclass_posterior`.
ENGINES = ("auto", "exact", "importance", "nuts")
#: Largest K importance sampling accepts (the proposal degrades as K grows).
MAX_IMPORTANCE_K = 5
#: Proposal draws made at once (memory: CHUNK x K x K floats).
CHUNK = 65_536
#: Proposal draws tried at most, as a multiple of ``proposals``, before giving up on D.
MAX_TRIES = 20
#: Pareto k-hat above which the importance weights are flagged (Vehtari et al.'s threshold).
PARETO_K_LIMIT = 0.7

KCLASS_POSTERIOR_FLAGS = register_flags(
    {
        "low_importance_ess": "the importance sampler's effective sample size is below the "
        "requested minimum, so its means and credible intervals carry Monte Carlo error; raise "
        "`proposals`, or use engine='nuts'",
        "importance_heavy_tail": "the importance weights are heavy-tailed (Pareto k-hat above "
        "0.7), so the effective sample size and the intervals are unreliable; use "
        "engine='nuts'",
    }
)


# -------------------------------------------------------------------------------------------
# the PyMC model
# -------------------------------------------------------------------------------------------
def _data_values(data: KClassData, alpha: float, beta: float) -> dict[str, np.ndarray]:
    return {
        "test_data": data.test.astype(np.int64),
        "n": np.asarray(data.n, dtype=np.int64),
        "confusion_data": data.confusion.astype(np.int64),
        "m": data.m.astype(np.int64),
        "labelled": np.asarray(int(data.m.sum()), dtype=np.int64),
        "alpha": np.asarray(float(alpha)),
        "beta": np.asarray(float(beta)),
    }


def build_kclass_model(data: KClassData, alpha: float = 1.0, beta: float | None = None) -> pm.Model:
    """Build the K-class model of the module docstring.

    Parameters
    ----------
    data : KClassData
        The counts; they enter through ``pm.Data`` containers (``test_data``, ``n``,
        ``confusion_data``, ``m``, ``labelled``, ``alpha``, ``beta``), so new counts of the same
        K and design can be swapped in with ``pm.set_data``.
    alpha : float, default 1
        Dirichlet concentration of pi (1: uniform on the simplex).
    beta : float, optional
        Dirichlet concentration of each row of C; default 2 / K (module docstring).

    Returns
    -------
    pymc.Model
        Free ``pi`` (dim ``class``) and ``C`` (dims ``true``, ``judged``); deterministic ``p``
        (dim ``class``); the potential ``diagonal_dominance`` (D); observed ``confusion``,
        ``test`` and, with the random design, ``labelled_classes``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    data = _check_data(data)
    alpha = check_positive_real(alpha, "alpha")
    beta = _row_concentration(beta, data.size)
    size = data.size
    names = [str(c) for c in data.classes]
    coords = {"class": names, "true": names, "judged": names}
    start = 0.5 * np.eye(size) + 0.5 / size  # inside D
    with pm.Model(coords=coords) as model:
        box = {
            name: pm.Data(name, value) for name, value in _data_values(data, alpha, beta).items()
        }
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


def _set_kclass_data(model: Any, spec: tuple[KClassData, float, float]) -> None:
    import pymc as pm

    pm.set_data(_data_values(*spec), model=model)


# -------------------------------------------------------------------------------------------
# weighted statistics
# -------------------------------------------------------------------------------------------
def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: Any) -> np.ndarray:
    """Quantiles of a weighted sample (the empirical CDF with each draw at its mid-mass).

    Draw i of the sorted sample sits at cumulative probability
    ``(W_i - w_i / 2) / W`` (W_i the running sum of the weights), and the quantile function
    interpolates linearly between those points; with equal weights this is Hazen's rule
    (``np.quantile(..., method="hazen")``).

    Parameters
    ----------
    values : ndarray, shape (S,)
    weights : ndarray, shape (S,)
        Non-negative, not all zero.
    q : float or array_like
        Probabilities in [0, 1].

    Returns
    -------
    ndarray
        The quantiles, shaped like ``q``.
    """
    probabilities = np.asarray(q, dtype=float)
    if not np.all((probabilities >= 0.0) & (probabilities <= 1.0)):
        raise ValueError(f"`q` must hold probabilities in [0, 1], got {q!r}.")
    order = np.argsort(values, kind="stable")
    sorted_values = np.asarray(values, dtype=float)[order]
    w = np.asarray(weights, dtype=float)[order]
    cumulative = np.cumsum(w)
    positions = (cumulative - 0.5 * w) / cumulative[-1]
    return np.interp(probabilities, positions, sorted_values)


def _weighted_row(
    values: np.ndarray, weights: np.ndarray, prob: float, method: str, flags: tuple[str, ...]
) -> tuple[IntervalResult, float]:
    """(mean with the equal-tailed interval, sd) of a weighted sample."""
    total = weights.sum()
    mean = float(weights @ values / total)
    sd = float(math.sqrt(max(weights @ (values - mean) ** 2 / total, 0.0)))
    low, high = weighted_quantile(values, weights, [(1 - prob) / 2, (1 + prob) / 2])
    return IntervalResult(
        mean, ConfidenceInterval(float(low), float(high)), prob, method, flags
    ), sd


# -------------------------------------------------------------------------------------------
# importance sampling
# -------------------------------------------------------------------------------------------
@dataclass
class _Draws:
    """Draws of pi (S, K) and C (S, K, K) with weights (S,) and the sampler's bookkeeping."""

    pi: np.ndarray
    c: np.ndarray
    weights: np.ndarray
    tried: int = 0
    in_d: int = 0
    found: int = 0


def _in_d(c: np.ndarray, det: np.ndarray | None = None) -> np.ndarray:
    """Whether each C (S, K, K) is in D: diagonally dominant in every column, det C > 0.

    ``det``: the determinants of ``c`` when the caller has them already.
    """
    size = c.shape[-1]
    off = c - 2.0 * np.eye(size)
    dominant = (np.diagonal(c, axis1=1, axis2=2) > off.max(axis=1)).all(axis=1)
    return np.asarray(dominant & ((np.linalg.det(c) if det is None else det) > 0.0))


def _chunk(
    data: KClassData, alpha: float, beta: float, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One chunk of proposals: (C in D, pi, log weight); pi outside the simplex has -inf."""
    concentration = beta + data.confusion.astype(float)
    c = np.stack([rng.dirichlet(row, size) for row in concentration], axis=1)
    det = np.linalg.det(c)
    keep = _in_d(c, det)
    c, det = c[keep], det[keep]
    p = rng.dirichlet(1.0 + data.test.astype(float), len(c))
    pi = np.linalg.solve(np.swapaxes(c, 1, 2), p[..., None])[..., 0]
    exponent = (alpha - 1.0) + (data.m if data.design == "random" else 0.0)
    inside = np.asarray((pi >= 0.0).all(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_w = (np.log(np.where(inside[:, None], pi, 1.0)) * exponent).sum(axis=1)
        log_w -= np.log(det)  # det C > 0 on D
    log_w = np.where(inside & np.isfinite(log_w), log_w, -np.inf)
    return c, pi, log_w


def importance_draws(
    data: KClassData, alpha: float, beta: float, proposals: int, rng: np.random.Generator
) -> _Draws:
    """``proposals`` proposal draws in D (fewer if D is too rare), weighted (module docstring).

    Raises
    ------
    ValueError
        If no proposal lands in D, or none of those gives a pi on the simplex.
    """
    cs, pis, logs = [], [], []
    tried = in_d = found = 0
    while in_d < proposals and tried < MAX_TRIES * proposals:
        c, pi, log_w = _chunk(data, alpha, beta, CHUNK, rng)
        tried += CHUNK
        found += len(c)
        keep = min(len(c), proposals - in_d)
        cs.append(c[:keep])
        pis.append(pi[:keep])
        logs.append(log_w[:keep])
        in_d += keep
    if in_d == 0:
        from judgestats.kclass.matrix import DOMINANCE_RULE, dominance_violation

        rows = data.confusion.astype(float)
        rates = (rows + beta) / (rows + beta).sum(axis=1, keepdims=True)
        pair = dominance_violation(rates)
        where = (
            ""
            if pair is None
            else f" (e.g. true class {data.classes[pair[0]]!r} is judged "
            f"{data.classes[pair[1]]!r} at least as often as true class "
            f"{data.classes[pair[1]]!r} is)"
        )
        raise ValueError(
            f"`data`: none of {tried} draws of the judge's confusion matrix from its calibration "
            f"posterior is diagonally dominant{where}; the model's identifiability constraint "
            f"needs {DOMINANCE_RULE}: the calibration contradicts it. Check the confusion counts "
            "(rows = true class, columns = judged class)."
        )
    log_w = np.concatenate(logs)
    if not np.isfinite(log_w).any():
        raise ValueError(
            f"`data`: the importance sampler found no draw of the confusion matrix (of {in_d}) "
            "for which the judged test shares correspond to true shares on the simplex, so it "
            "cannot describe this posterior (its mass lies where a share is near 0 and the "
            "judge near its limits). Raise `proposals` or use engine='nuts'; and check that the "
            "test and calibration counts use the same classes in the same order."
        )
    weights = np.exp(log_w - log_w.max())
    keep = weights > 0
    return _Draws(
        pi=np.concatenate(pis)[keep],
        c=np.concatenate(cs)[keep],
        weights=weights[keep],
        tried=tried,
        in_d=in_d,
        found=found,
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
    engine : str
        ``"exact"``, ``"importance"`` or ``"nuts"``.
    alpha, beta : float
        Dirichlet concentrations of pi and of the rows of C.
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
    engine: str
    alpha: float
    beta: float
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
    def method(self) -> str:
        """The method label of the rows: ``"<engine>_posterior_mean+eti"``."""
        return f"{self.engine}_posterior_mean+eti"

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
        from judgestats.kclass.functionals import check_weights

        a = check_weights(self.classes, weights)
        level = self.prob if prob is None else check_level(prob, "prob")
        method = self.method if name is None else f"{name}: {self.method}"
        if self._exact is not None:
            return _exact_functional(self._exact, a, level, method, self.flags)
        row, _ = _weighted_row(self._pi @ a, self._weights, level, method, self.flags)
        return row

    def share(self, classes: Any, *, prob: float | None = None) -> IntervalResult:
        """The share of one class, or the summed share of several."""
        from judgestats.kclass.functionals import share_label, share_weights

        a = share_weights(self.classes, classes)
        return self.functional(a, prob=prob, name=share_label(self.classes, a))

    def mean_score(self, scores: Any = None, *, prob: float | None = None) -> IntervalResult:
        """The mean score: ``scores`` per class (default: numeric classes are the scores)."""
        from judgestats.kclass.functionals import mean_score_weights

        a = mean_score_weights(self.classes, scores)
        return self.functional(a, prob=prob, name="mean score")

    def win_rate(self, win: Any, tie: Any = None, *, prob: float | None = None) -> IntervalResult:
        """The win rate of the class ``win``, a ``tie`` counting half."""
        from judgestats.kclass.functionals import win_rate_label, win_rate_weights

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
        """Return a JSON-safe dict: inputs, engine, every share, C's mean, ESS, flags."""
        return {
            "engine": self.engine,
            "prob": self.prob,
            "alpha": self.alpha,
            "beta": self.beta,
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
            f"judgestats K-class posterior (engine {self.engine}, {level} equal-tailed credible "
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
def _row_concentration(beta: Any, size: int) -> float:
    """``beta``, checked; None gives the default 2 / K (two prior pseudo-items per row)."""
    if beta is None:
        return 2.0 / size
    return check_positive_real(beta, "beta", "Dirichlet concentration of each confusion row")


def _check_data(data: Any) -> KClassData:
    from judgestats.kclass.data import KClassData

    if not isinstance(data, KClassData):
        raise TypeError(
            f"`data` must be a judgestats.kclass.KClassData, got {type(data).__name__}."
        )
    return data


def _choose_engine(engine: str, data: KClassData, alpha: float, beta: float) -> str:
    size = data.size
    if engine == "auto":
        if size == 2 and alpha == 1.0 and beta == 1.0:
            return "exact"
        return "importance" if size <= MAX_IMPORTANCE_K else "nuts"
    if engine == "exact" and not (size == 2 and alpha == 1.0 and beta == 1.0):
        raise ValueError(
            f"`engine` ('exact') needs K = 2 classes and alpha = beta = 1 (the binary model); "
            f"got K = {size}, alpha = {alpha:g}, beta = {beta:g}. Use 'importance' or 'nuts'."
        )
    if engine == "importance" and size > MAX_IMPORTANCE_K:
        raise ValueError(
            f"`engine` ('importance') is offered for K <= {MAX_IMPORTANCE_K} classes only (its "
            f"proposal degrades as K grows); these counts have K = {size}: use engine='nuts'."
        )
    return engine


def kclass_posterior(
    data: KClassData,
    *,
    engine: str = "auto",
    alpha: float = 1.0,
    beta: float | None = None,
    draws: int = 4000,
    proposals: int = 200_000,
    min_ess: float = 1000.0,
    prob: float = 0.95,
    random_seed: Any = None,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float = 0.9,
    progressbar: bool | None = None,
    compiled: NutsCache | None = None,
) -> KClassPosterior:
    """Posterior of the true class shares of a K-class judge (module docstring's model).

    Parameters
    ----------
    data : KClassData
        The test verdict counts and the calibration confusion counts.
    engine : {"auto", "exact", "importance", "nuts"}, default "auto"
        "auto": the exact binary engine at K = 2 with alpha = beta = 1 (so K = 2 reproduces
        :func:`judgestats.posterior`), importance sampling for K <= 5, NUTS beyond.
    alpha : float, default 1
        Dirichlet concentration of pi (1: uniform on the simplex).
    beta : float, optional
        Dirichlet concentration of every row of C; default 2 / K, two prior pseudo-items per
        row (1 at K = 2: the binary uniform prior). See the module docstring.
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
        NUTS options (:func:`judgestats.bayes.nuts.sample_nuts`); ``chains`` also shapes the
        exact engine's idata.

    Returns
    -------
    KClassPosterior

    Raises
    ------
    TypeError
        If ``data`` is not a KClassData, or an option has the wrong type.
    ValueError
        For a bad engine (or one that does not fit K), non-positive alpha, beta, draws,
        proposals, min_ess, a ``prob`` outside (0, 1), or counts that contradict the
        identifiability constraint (no proposal in D or on the simplex).

    Warns
    -----
    JudgeStatsWarning
        Once, listing the flags that apply.
    """
    data = _check_data(data)
    engine = check_choice(engine, "engine", ENGINES)
    alpha = check_positive_real(alpha, "alpha", "Dirichlet concentration of the class shares")
    beta = _row_concentration(beta, data.size)
    draws, proposals, tune, chains = (
        check_positive_int(v, name)
        for v, name in (
            (draws, "draws"),
            (proposals, "proposals"),
            (tune, "tune"),
            (chains, "chains"),
        )
    )
    min_ess = check_positive_real(min_ess, "min_ess")
    prob = check_level(prob, "prob")
    target_accept = check_level(target_accept, "target_accept")
    rng = as_generator(random_seed)
    engine = _choose_engine(engine, data, alpha, beta)
    common = {"data": data, "alpha": alpha, "beta": beta, "prob": prob}
    if engine == "exact":
        result = _exact(draws, chains, rng, **common)
    elif engine == "importance":
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
    alpha: float,
    beta: float,
    prob: float,
    engine: str,
    **fields: Any,
) -> KClassPosterior:
    """The result from (weighted) draws of pi (S, K) and C (S, K, K)."""
    flags = fields.get("flags", ())
    method = f"{engine}_posterior_mean+eti"
    rows = [_weighted_row(pi[:, k], weights, prob, method, flags) for k in range(data.size)]
    mean_c = np.tensordot(weights, c, axes=1) / weights.sum()
    return KClassPosterior(
        classes=data.classes,
        shares=tuple(row for row, _ in rows),
        sd=tuple(sd for _, sd in rows),
        confusion_mean=_frozen(mean_c),
        engine=engine,
        alpha=alpha,
        beta=beta,
        prob=prob,
        inputs=data.to_dict(),
        _pi=pi,
        _weights=weights,
        _c=c,
        **fields,
    )


def _idata(pi: np.ndarray, c: np.ndarray, data: KClassData, **extra: Any) -> Any:
    """InferenceData of pi (chain, draw, class), C (chain, draw, true, judged) and p."""
    import arviz as az

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


def _pareto_k(weights: np.ndarray) -> float:
    """Pareto k-hat of the weights' upper tail (``arviz.psislw``; module docstring)."""
    import arviz as az

    if len(weights) < 5:  # too few draws to fit a tail; the ESS flag speaks for them
        return math.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # arviz warns when k-hat is high: that is our flag
        _, k_hat = az.psislw(np.log(weights), reff=1.0)
    return float(k_hat)


def _importance(
    draws: int, proposals: int, min_ess: float, rng: np.random.Generator, **common: Any
) -> KClassPosterior:
    data = common["data"]
    sample = importance_draws(data, common["alpha"], common["beta"], proposals, rng)
    w = sample.weights
    ess = float(w.sum() ** 2 / (w @ w))
    pareto_k = _pareto_k(w)
    flags = tuple(
        flag
        for flag, raised in (
            ("low_importance_ess", ess < min_ess),
            ("importance_heavy_tail", pareto_k > PARETO_K_LIMIT),
        )
        if raised
    )
    diagnostics = {
        "proposals_tried": sample.tried,
        "acceptance_d": sample.found / sample.tried,
        "acceptance_simplex": len(w) / sample.in_d,
        "pareto_k": pareto_k,
    }
    picks = rng.choice(len(w), size=draws, replace=True, p=w / w.sum())
    idata = _idata(sample.pi[picks][None], sample.c[picks][None], data)
    return _from_draws(
        sample.pi,
        sample.c,
        w,
        engine="importance",
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
    from judgestats.bayes.diagnostics import convergence, convergence_flags
    from judgestats.bayes.nuts import NutsCache, compile_nuts

    if compiled is not None and not isinstance(compiled, NutsCache):
        raise TypeError(
            f"`compiled` must be a judgestats.bayes.nuts.NutsCache or None, got "
            f"{type(compiled).__name__}."
        )
    data = common["data"]
    key = ("kclass", data.size, data.design, target_accept)

    def factory() -> Any:
        return compile_nuts(
            build_kclass_model(data, common["alpha"], common["beta"]),
            target_accept=target_accept,
            output_names=("pi", "C", "p"),
            set_data=_set_kclass_data,
            key=key,
        )

    sampler = factory() if compiled is None else compiled.get(key, factory)
    values, stats = sampler.run(
        (data, common["alpha"], common["beta"]),
        draws=draws,
        tune=tune,
        chains=chains,
        rng=rng,
        progressbar=progressbar,
    )
    idata = _idata(values["pi"], values["C"], data, sample_stats=stats)
    diagnostics = convergence(idata, ("pi", "C"))
    flags = convergence_flags(diagnostics)
    size = data.size
    pi = values["pi"].reshape(-1, size)
    c = values["C"].reshape(-1, size, size)
    ess = min(diagnostics["ess_bulk"], diagnostics["ess_tail"])
    return _from_draws(
        pi,
        c,
        np.ones(len(pi)),
        engine="nuts",
        ess=ess,
        diagnostics=diagnostics,
        flags=flags,
        idata=idata,
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
        engine="exact",
        alpha=common["alpha"],
        beta=common["beta"],
        prob=prob,
        inputs=data.to_dict(),
        diagnostics=dict(post.diagnostics),
        flags=tuple(post.flags),
        idata=_idata(pi, c, data),
        _exact=post,
    )
