r"""Every candidate interval for random-design data, for either estimand, side by side.

With a random labelled sample (``JudgeData(..., design="random")``) the labelled items say two
things: how the judge errs, and directly what share is correct. The candidates
(:data:`CANDIDATE_NAMES`):

``labels_only_cp``, ``labels_only_blaker``
    Exact intervals from the labelled items alone, the judge ignored
    (:mod:`judgestats.designs.labels_only`): Clopper-Pearson and Blaker's, binomial for the
    population, hypergeometric over the N items for the items target.
``guaranteed_judge``
    Coverage at least the level for every (theta, q0, q1) by construction, using the judge and
    the labelled class count (:func:`judgestats.designs.random_guaranteed.guaranteed_judge_ci`:
    an exact test over the labelled 2x2 table and the unlabelled verdict count, the judge's
    rates by a Berger-Boos supremum); NaN where m exceeds
    :data:`~judgestats.designs.random_guaranteed.LABELLED_MAX` (its cost grows as m^3).
``ppi_pp``
    PPI++ (Angelopoulos, Duchi & Zrnic, "PPI++: Efficient Prediction-Powered Inference",
    arXiv 2311.01453) with the power-tuned lambda and a small-sample correction: z^2/4
    pseudo-items in each cell of the labelled 2x2 table (Agresti-Coull-style), the variance
    that estimating lambda on the same labels adds (delete-one jackknife) and Student's t
    quantile (:func:`judgestats.designs.prediction_powered.ppi_pp_counts`).
``posterior_eti``, ``posterior_hdi``
    The random-design posterior (:func:`judgestats.posterior`, exact engine; the labelled class
    count informs theta). For the items target the number T_u of truly correct unlabelled items
    is drawn from its posterior predictive: given a joint draw (theta, q0, q1) and
    p = theta q1 + (1 - theta)(1 - q0), each of the k items judged correct is correct with
    probability theta q1 / p and each of the n - k judged incorrect with probability
    theta (1 - q1) / (1 - p), so

    .. math:: T_u \mid \theta, q_0, q_1 \sim \mathrm{Bin}(k, \theta q_1 / p)
              + \mathrm{Bin}(n - k, \theta (1 - q_1) / (1 - p)),
              \qquad \theta_{items} = (m_1 + T_u) / N.

    The equal-tailed interval is from the draws' quantiles, the HDI the shortest interval
    holding the level's share of the draws.

The estimand (``target``): ``"population"``, the accuracy of the process that produced the items,
or ``"items"``, the share of correct items among the N = n + m items evaluated (labelled ones
known). The coverage of each candidate, and the rule that picks one, are in
:mod:`judgestats.recommendation.random_rule`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._html import fmt_percent
from judgestats._json import to_json
from judgestats._validate import as_generator, check_level, check_positive_int
from judgestats.data import JudgeData, require_design
from judgestats.designs.labels_only import check_target, describe_target, labels_only_triple
from judgestats.designs.prediction_powered import ppi_pp_counts
from judgestats.exceptions import JudgeStatsWarning
from judgestats.results import FLAG_MESSAGES, Result

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from judgestats._typing import SeedLike
    from judgestats.bayes.binary_posterior import Posterior

__all__ = [
    "CANDIDATE_LABELS",
    "CANDIDATE_NAMES",
    "RandomDesignCandidates",
    "count_candidates",
    "items_draws",
    "random_design_candidates",
    "shortest_interval",
]

#: Stable names of the candidate intervals, in display order.
CANDIDATE_NAMES = (
    "labels_only_cp",
    "labels_only_blaker",
    "guaranteed_judge",
    "ppi_pp",
    "posterior_eti",
    "posterior_hdi",
)
CANDIDATE_LABELS = {
    "labels_only_cp": "labels only, Clopper-Pearson",
    "labels_only_blaker": "labels only, Blaker",
    "guaranteed_judge": "guaranteed, judge + labels",
    "ppi_pp": "PPI++ (Agresti-Coull 2x2)",
    "posterior_eti": "posterior median + equal-tailed",
    "posterior_hdi": "posterior mode + HDI",
}
#: Posterior predictive draws of the items target.
ITEMS_DRAWS = 4000
#: The most posterior predictive draws :func:`random_design_candidates` takes (memory grows
#: with them).
ITEMS_DRAWS_MAX = 1_000_000

Triple = tuple[float, float, float]


@dataclass(frozen=True)
class RandomDesignCandidates(Result):
    """The candidate intervals of one random-design dataset.

    Attributes
    ----------
    data : JudgeData
    target : {"population", "items"}
        What every interval estimates (see the module docstring).
    confidence_level : float
    intervals : dict of str to (estimate, low, high)
        Keys of :data:`CANDIDATE_NAMES`.
    flags : tuple of str
        The posterior's flags (keys of :data:`judgestats.results.FLAG_MESSAGES`).
    """

    title: ClassVar[str] = "judgestats random-design candidates"

    data: JudgeData
    target: str
    confidence_level: float
    intervals: dict[str, Triple]
    flags: tuple[str, ...] = ()

    def width(self, name: str) -> float:
        """``high - low`` of one candidate."""
        _, low, high = self.intervals[name]
        return high - low

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: inputs, target, level, every interval, the flags."""
        return to_json(
            {
                "inputs": self.data.to_dict(),
                "target": self.target,
                "confidence_level": self.confidence_level,
                "intervals": {
                    name: {"estimate": e, "low": lo, "high": hi, "width": hi - lo}
                    for name, (e, lo, hi) in self.intervals.items()
                },
                "flags": {flag: FLAG_MESSAGES[flag] for flag in self.flags},
            }
        )

    def summary(self) -> pd.DataFrame:
        """One row per candidate: estimate, low, high, width (target in ``.attrs``)."""
        import pandas as pd

        frame = pd.DataFrame.from_dict(
            {CANDIDATE_LABELS[k]: v for k, v in self.intervals.items()},
            orient="index",
            columns=["estimate", "low", "high"],
        )
        frame["width"] = frame["high"] - frame["low"]
        frame.index.name = "method"
        frame.attrs["target"] = self.target
        return frame

    def __str__(self) -> str:
        what = describe_target(self.target, self.data.n + self.data.m).removeprefix("the ")
        lines = [
            f"judgestats random-design candidates ({fmt_percent(self.confidence_level)}; target "
            f"{self.target}: {what})"
        ]
        for name, (e, lo, hi) in self.intervals.items():
            lines.append(
                f"  {CANDIDATE_LABELS[name]:<34} {e:.4f} ({lo:.4f}, {hi:.4f})  width {hi - lo:.4f}"
            )
        lines += [f"  note: {message}" for message in self.flag_messages]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"RandomDesignCandidates(data={self.data!r}, target={self.target!r}, "
            f"confidence_level={self.confidence_level!r}, intervals={self.intervals!r}, "
            f"flags={self.flags!r})"
        )


def shortest_interval(draws: np.ndarray, level: float) -> tuple[float, float]:
    """Shortest interval holding ``ceil(level * S)`` of the S draws (the HDI of draws)."""
    values = np.sort(np.asarray(draws, dtype=float))
    size = values.size
    hold = min(size, max(1, math.ceil(level * size)))
    widths = values[hold - 1 :] - values[: size - hold + 1]
    start = int(np.argmin(widths))
    return float(values[start]), float(values[start + hold - 1])


def items_draws(
    draws: dict[str, np.ndarray], data: JudgeData, random_seed: SeedLike = None
) -> np.ndarray:
    """Posterior predictive draws of theta_items = (m1 + T_u) / N (module docstring).

    ``draws`` holds joint draws of ``theta``, ``q0``, ``q1`` (equal length).
    """
    rng = as_generator(random_seed)
    theta, q0, q1 = (np.asarray(draws[v], dtype=float) for v in ("theta", "q0", "q1"))
    p = np.clip(theta * q1 + (1 - theta) * (1 - q0), 1e-300, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if_correct = np.clip(np.where(p > 0, theta * q1 / p, 0.0), 0.0, 1.0)
        if_incorrect = np.clip(np.where(p < 1, theta * (1 - q1) / (1 - p), 0.0), 0.0, 1.0)
    unlabelled = rng.binomial(data.k, if_correct) + rng.binomial(data.n - data.k, if_incorrect)
    return (data.m1 + unlabelled) / (data.n + data.m)


def _posterior_triples(
    post: Posterior, data: JudgeData, target: str, level: float, seed: SeedLike, draws: int
) -> tuple[Triple, Triple]:
    if target == "population":
        eti = post.ci(prob=level, kind="eti")
        hdi = post.ci(prob=level, kind="hdi")
        mode = getattr(post.engine, "mode", None)
        centre = float(mode()) if callable(mode) else float(post.quantile(0.5))
        return (float(post.quantile(0.5)), *eti), (centre, *hdi)
    rng = as_generator(seed)
    joint = post.engine.sample(draws, rng)
    values = items_draws(joint, data, rng)
    tail = (1.0 - level) / 2.0
    low, median, high = np.quantile(values, [tail, 0.5, 1.0 - tail])
    hdi_low, hdi_high = shortest_interval(values, level)
    return (float(median), float(low), float(high)), (float(median), hdi_low, hdi_high)


def count_candidates(
    k: int,
    n: int,
    k0: int,
    m0: int,
    k1: int,
    m1: int,
    *,
    target: str,
    level: float,
    guaranteed_judge: bool = False,
) -> dict[str, Triple]:
    """The candidates from counts (labels only, PPI++); ``n`` may be 0 (items).

    With ``guaranteed_judge=True`` also ``"guaranteed_judge"`` (0.01-2 s; NaN where m exceeds
    :data:`~judgestats.designs.random_guaranteed.LABELLED_MAX`). With n = 0 and
    ``target="items"`` every item is labelled: each interval is the known share m1 / m with
    zero width.
    """
    m = m0 + m1
    if n == 0:
        if target != "items":
            raise ValueError(
                "`n` (0) must be at least 1 for target='population': the unlabelled items carry "
                "the judge's information about the process."
            )
        share = m1 / m
        return {name: (share, share, share) for name in CANDIDATE_NAMES}
    out = {
        f"labels_only_{short}": labels_only_triple(
            m1, m, n, method=method, target=target, level=level
        )
        for short, method in (("cp", "clopper_pearson"), ("blaker", "blaker"))
    }
    estimate, low, high, _ = ppi_pp_counts(
        k, n, k0, m0, k1, m1, target=target, confidence_level=level
    )
    out["ppi_pp"] = (float(estimate), float(low), float(high))
    if guaranteed_judge:
        from judgestats.designs.random_guaranteed import guaranteed_judge_counts

        out["guaranteed_judge"] = guaranteed_judge_counts(
            k, n, k0, m0, k1, m1, target=target, level=level
        )
    return out


def random_design_candidates(
    data: JudgeData,
    *,
    target: str = "population",
    confidence_level: float = 0.95,
    random_seed: SeedLike = None,
    draws: int = ITEMS_DRAWS,
) -> RandomDesignCandidates:
    """Every candidate interval for random-design data (see the module docstring).

    Parameters
    ----------
    data : JudgeData
        ``design="random"``: ``k`` of ``n`` unlabelled items judged correct, and the labelled
        random sample's 2x2 table.
    target : {"population", "items"}, default "population"
        The accuracy of the process, or the share of correct items among the n + m evaluated.
    confidence_level : float, default 0.95
    random_seed : int or numpy.random.Generator, optional
        Seed of the posterior predictive draws (items target).
    draws : int, default 4000
        Posterior predictive draws for the items target (1 to :data:`ITEMS_DRAWS_MAX`).

    Returns
    -------
    RandomDesignCandidates
        ``.intervals`` maps "labels_only_cp", "labels_only_blaker", "guaranteed_judge",
        "ppi_pp", "posterior_eti", "posterior_hdi" to (estimate, low, high)
        ("guaranteed_judge" is NaN where m exceeds 40).

    Raises
    ------
    ValueError
        If ``data`` is not of the random design, ``target`` is unknown (the message names
        ``target``) or ``draws`` is not a whole number in [1, :data:`ITEMS_DRAWS_MAX`].
    TypeError
        If ``draws`` is not a number.
    """
    from judgestats.bayes.binary_posterior import posterior

    target = check_target(target)
    data = require_design(data, "random", "`random_design_candidates`")
    level = check_level(confidence_level)
    rng = as_generator(random_seed)
    draws = check_positive_int(draws, "draws", maximum=ITEMS_DRAWS_MAX)
    counts = (data.k, data.n, data.k0, data.m0, data.k1, data.m1)
    intervals = count_candidates(*counts, target=target, level=level, guaranteed_judge=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # carried as flags
        post = posterior(data, random_seed=rng)
    eti, hdi = _posterior_triples(post, data, target, level, rng, draws)
    intervals["posterior_eti"], intervals["posterior_hdi"] = eti, hdi
    return RandomDesignCandidates(
        data=data,
        target=target,
        confidence_level=level,
        intervals={name: intervals[name] for name in CANDIDATE_NAMES},
        flags=tuple(post.flags),
    )
