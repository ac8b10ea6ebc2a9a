"""The Bayesian path: the only part of judgestats that imports pymc, pytensor and arviz (lazily)."""

from judgestats.bayes.priors import DirichletPrior, Prior, StratifiedPrior

__all__ = ["DirichletPrior", "Prior", "StratifiedPrior"]
