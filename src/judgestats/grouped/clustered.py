"""The closed form on repeatedly judged items: cluster-robust effective sizes.

When item ids repeat (Inspect epochs, several samples per prompt) every row is one judgment and
the rows of one id form a cluster. The point estimate uses every row; the variances are
cluster-robust (:mod:`judgestats.grouped.clusters`), and the Lang-Reiczigel interval (Lee et al.,
"How to Correctly Report LLM-as-a-Judge Evaluations", arXiv 2511.21140 v1, eqs. 4-7) is
evaluated at the *effective* sizes ``n / d_p``, ``m0 / d_q0``, ``m1 / d_q1`` in place of
``n, m0, m1``. Lang-Reiczigel's variance is a sum of binomial variances ``r(1-r)/size``, so
dividing each size by its design effect turns each term into the cluster-robust variance of that
rate, while its Laplace smoothing (eq. 6: ``+1/+2`` pseudo-counts, ``+z^2/2`` on ``n``) is applied
on the same effective scale, as for a binomial count of that size. The public
:func:`~judgestats.lang_reiczigel_ci` validates its sizes as whole counts, so the effective (float)
sizes go to the same formula through its private kernel, which is written for floats. The
posterior does not cluster; :meth:`judgestats.JudgeData.from_items` keeps refusing repeated ids.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from judgestats._json import to_json
from judgestats.frequentist import (
    SMALL_CALIBRATION,
    Estimate,
    estimate,
    lang_reiczigel_at_z,
    normal_quantile,
    rogan_gladen,
)
from judgestats.grouped._frames import judge_data, six_counts
from judgestats.grouped.clusters import ArmDesign, cluster_totals, ratio_design
from judgestats.results import FLAG_MESSAGES, ConfidenceInterval

__all__ = ["ClusteredEstimate"]


@dataclass(frozen=True)
class ClusteredEstimate(Estimate):
    """The closed form on repeatedly judged items: an :class:`~judgestats.Estimate` plus the design.

    ``data`` counts judgments (rows), not items; ``naive_ci`` and ``ci`` use the effective sizes
    (see :mod:`judgestats.grouped.clustered`).

    Attributes
    ----------
    items : int
        Distinct item ids (clusters) in the frame.
    clusters : tuple of int
        Clusters with rows in the test arm, the class-0 and the class-1 calibration arms.
    design_effects : tuple of float
        Design effects of p-hat, q0-hat and q1-hat (each >= 1; :mod:`judgestats.grouped.clusters`).
    """

    title: ClassVar[str] = "judgestats estimate (clustered by item id)"

    items: int = 0
    clusters: tuple[int, int, int] = (0, 0, 0)
    design_effects: tuple[float, float, float] = (1.0, 1.0, 1.0)
    method: str = "rogan_gladen+lang_reiczigel (clustered by item id)"

    @property
    def effective_sizes(self) -> tuple[float, float, float]:
        """(n, m0, m1) divided by their design effects."""
        d = self.data
        return (
            d.n / self.design_effects[0],
            d.m0 / self.design_effects[1],
            d.m1 / self.design_effects[2],
        )

    def _design_line(self) -> str:
        effects = ", ".join(
            f"{name} {value:.2f}"
            for name, value in zip(("p", "q0", "q1"), self.design_effects, strict=True)
        )
        sizes = ", ".join(
            f"{name} {value:.1f}"
            for name, value in zip(("n", "m0", "m1"), self.effective_sizes, strict=True)
        )
        d = self.data
        return (
            f"{d.n + d.m} judgments of {self.items} items; design effects {effects}; "
            f"effective sizes {sizes}"
        )

    @property
    def flag_messages(self) -> list[str]:
        """The flags as sentences; ``clustered`` names the design effects."""
        return [
            FLAG_MESSAGES[flag] + (f" ({self._design_line()})" if flag == "clustered" else "")
            for flag in self.flags
        ]

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Estimate.to_dict` plus the clusters, design effects and effective sizes."""
        out = super().to_dict()
        out["flags"] = dict(zip(self.flags, self.flag_messages, strict=True))
        out["clustered"] = {
            "items": self.items,
            "judgments": self.data.n + self.data.m,
            "clusters": dict(zip(("test", "class_0", "class_1"), self.clusters, strict=True)),
            "design_effects": dict(zip(("p", "q0", "q1"), self.design_effects, strict=True)),
            "effective_sizes": dict(zip(("n", "m0", "m1"), self.effective_sizes, strict=True)),
        }
        return to_json(out)

    def __str__(self) -> str:
        text = super().__str__().splitlines()
        return "\n".join([text[0], f"  clustered     : {self._design_line()}", *text[1:]])


def _arms(
    codes: np.ndarray, judge: np.ndarray, human: np.ndarray, design: str
) -> tuple[ArmDesign, ArmDesign, ArmDesign]:
    """The test arm (p-hat) and both calibration arms (q0-hat, q1-hat) with their designs.

    Stratified and random designs split the rows alike: unlabelled rows are the test arm (a
    random design's ``k, n`` also count the unlabelled items only), labelled rows calibrate.
    """
    del design  # both designs split the rows alike (see above)
    n_clusters = int(codes.max()) + 1 if codes.size else 0
    test = cluster_totals(codes, judge, human < 0, n_clusters)
    class0 = cluster_totals(codes, 1 - judge, human == 0, n_clusters)
    class1 = cluster_totals(codes, judge, human == 1, n_clusters)
    return ratio_design(*test), ratio_design(*class0), ratio_design(*class1)


def _clustered_estimate(
    codes: np.ndarray,
    judge: np.ndarray,
    human: np.ndarray,
    *,
    design: str,
    level: float,
    source: str,
) -> ClusteredEstimate:
    """The closed form with cluster-robust effective sizes (module docstring)."""
    data = judge_data(six_counts(judge, human), design, source)
    if data.one_class:  # random design with one labelled class: estimate() explains
        estimate(data, confidence_level=level)
    arms = _arms(codes, judge, human, design)
    p, q0, q1 = data.p, data.q0, data.q1
    n_eff, m0_eff, m1_eff = (arm.effective_size for arm in arms)
    z = normal_quantile(0.5 + level / 2.0)
    theta_raw = rogan_gladen(p, q0, q1, clip=False)  # raises for J <= 0
    theta = min(1.0, max(0.0, theta_raw))
    ci = lang_reiczigel_at_z(
        tuple(np.asarray(v, dtype=np.float64) for v in (p, q0, q1, n_eff, m0_eff, m1_eff)), z
    )
    half = z * math.sqrt(p * (1.0 - p) / n_eff)
    naive_ci = ConfidenceInterval(max(0.0, p - half), min(1.0, p + half))
    flags = ["clustered"]
    if theta != theta_raw:
        flags.append("clipped")
    if ci.high - ci.low == 0.0:
        flags.append("zero_width")
    if min(m0_eff, m1_eff) < SMALL_CALIBRATION:
        flags.append("small_calibration")
    if not 1.0 - q0 <= p <= q1:
        flags.append("p_outside_judge_range")
    return ClusteredEstimate(
        data=data,
        confidence_level=level,
        naive=p,
        naive_ci=naive_ci,
        theta_raw=theta_raw,
        theta=theta,
        ci=ci,
        youden=data.youden,
        flags=tuple(flags),
        items=int(codes.max()) + 1,
        clusters=(int(arms[0].clusters), int(arms[1].clusters), int(arms[2].clusters)),
        design_effects=(
            float(arms[0].design_effect),
            float(arms[1].design_effect),
            float(arms[2].design_effect),
        ),
    )
