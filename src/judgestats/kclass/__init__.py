"""K-class verdicts: judges that say more than yes or no.

Pairwise judges say A / B / tie, rubric judges give scores 1-5 or correct / partially correct /
incorrect. With true class shares ``pi`` (on the simplex) and the judge's confusion matrix
``C`` (row i: the distribution of the judge's verdict on an item of true class i), the judged
shares are ``p = C^T pi``; a calibration set with true and judged classes measures ``C``.

* :class:`KClassData` -- the test verdict counts and the calibration confusion counts
  (:mod:`judgestats.kclass.data`);
* :func:`kclass_estimate` -- the matrix Rogan-Gladen shares, projected onto the simplex, with the
  generalised Lang-Reiczigel interval for every share and any linear functional
  (:mod:`judgestats.kclass.closed_form`, the formulas in :mod:`judgestats.kclass.matrix`);
* :func:`kclass_posterior` -- the posterior of the shares and the confusion matrix
  (:mod:`judgestats.kclass.bayesian`; the model and engines in :mod:`judgestats.bayes`);
* :func:`kclass_recommended` -- one interval to report for any functional, on every dataset:
  the closed form where it is defined and benchmarked, else the posterior, else a guaranteed
  interval (:mod:`judgestats.kclass.recommended`).
"""

from judgestats.kclass.bayesian import KClassPosterior, kclass_posterior
from judgestats.kclass.closed_form import KCLASS_FLAGS, KClassEstimate, kclass_estimate
from judgestats.kclass.data import BINARY_CLASSES, KClassData
from judgestats.kclass.recommended import KClassRecommendation, kclass_recommended

__all__ = [
    "BINARY_CLASSES",
    "KCLASS_FLAGS",
    "KClassData",
    "KClassEstimate",
    "KClassPosterior",
    "KClassRecommendation",
    "kclass_estimate",
    "kclass_posterior",
    "kclass_recommended",
]
