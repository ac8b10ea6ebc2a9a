"""The Bayesian path: the only part of judgecal that imports pymc, pytensor and arviz (lazily)."""

from judgecal.bayes.priors import Prior

__all__ = ["Prior"]
