"""K-class verdicts: judges that say more than yes or no.

Pairwise judges say A / B / tie, rubric judges give scores 1-5 or correct / partially correct /
incorrect. With true class shares ``pi`` (on the simplex) and the judge's confusion matrix
``C`` (row i: the distribution of the judge's verdict on an item of true class i), the judged
shares are ``p = C^T pi``; a calibration set with true and judged classes measures ``C``.

* :class:`KClassData` -- the test verdict counts and the calibration confusion counts
  (:mod:`judgestats.kclass.data`);
* :func:`kclass_estimate` -- the matrix Rogan-Gladen shares, projected onto the simplex, with the
  generalised Lang-Reiczigel interval for every share and any linear functional
  (:mod:`judgestats.kclass.closed_form`, the formulas in :mod:`judgestats.kclass.matrix`).
"""

from judgestats.kclass.closed_form import KCLASS_FLAGS, KClassEstimate, kclass_estimate
from judgestats.kclass.data import BINARY_CLASSES, KClassData

__all__ = ["BINARY_CLASSES", "KCLASS_FLAGS", "KClassData", "KClassEstimate", "kclass_estimate"]

from judgestats.bayes.kclass_model import (  # noqa: E402
    KClassPosterior as KClassPosterior,
)
from judgestats.bayes.kclass_model import (  # noqa: E402
    kclass_posterior as kclass_posterior,
)
