"""Stratified calibration: a judge whose accuracy depends on the task category.

Strata s = 1..S (coding, writing, maths ...) each have their own test counts and their own
calibration; the overall accuracy is ``theta = sum_s w_s theta_s`` with the test shares
``w_s = n_s / N``. One pooled calibration biases that number whenever the judge's error rates
differ between strata and the calibration mixes the strata differently from the test set.

* :class:`StratifiedData` -- the six counts per stratum (:mod:`judgestats.stratified.data`);
* :func:`stratified_estimate` -- per-stratum Rogan-Gladen combined, Lang-Reiczigel variances
  summed (:mod:`judgestats.stratified.closed_form`);
* :func:`pooled_bias` -- how far the pooled correction is from the stratified one, and why
  (:mod:`judgestats.stratified.diagnostic`);
* :func:`stratified_posterior` -- the hierarchical posterior, strata partially pooled
  (:mod:`judgestats.stratified.bayesian`; the model in :mod:`judgestats.bayes.stratified_model`).
"""

from judgestats.stratified.bayesian import StratifiedPosterior, stratified_posterior
from judgestats.stratified.closed_form import StratifiedEstimate, stratified_estimate
from judgestats.stratified.data import StratifiedData
from judgestats.stratified.diagnostic import (
    POOLED_BIAS_MIN,
    POOLED_BIAS_Z,
    STRATIFIED_FLAGS,
    PooledBias,
    pooled_bias,
)

__all__ = [
    "POOLED_BIAS_MIN",
    "POOLED_BIAS_Z",
    "STRATIFIED_FLAGS",
    "PooledBias",
    "StratifiedData",
    "StratifiedEstimate",
    "StratifiedPosterior",
    "pooled_bias",
    "stratified_estimate",
    "stratified_posterior",
]
