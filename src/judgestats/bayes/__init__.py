"""The Bayesian path: the only part of judgestats that imports pymc, pytensor and arviz (lazily)."""

from judgestats.bayes.priors import Prior

__all__ = ["Prior"]
