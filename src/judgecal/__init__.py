"""judgecal: honest accuracy estimates from LLM-as-a-judge evaluations.

An LLM judge errs in both directions, so the raw judged-correct rate is biased. A small
human-labelled calibration set measures the judge's specificity q0 and sensitivity q1; judgecal
corrects the bias (Rogan-Gladen) and reports the uncertainty (Lang-Reiczigel interval).

Importing judgecal loads numpy only; scipy.special, pandas, xarray, pymc, arviz and matplotlib
load when first used.
"""

from judgecal.bayes.posterior import Posterior, posterior
from judgecal.bayes.priors import Prior
from judgecal.crosscheck import CrossCheck, crosscheck
from judgecal.data import JudgeData
from judgecal.exceptions import JudgeCalWarning
from judgecal.frequentist import (
    estimate,
    lang_reiczigel_ci,
    naive_wald_ci,
    rogan_gladen,
    rogan_gladen_variance,
)
from judgecal.results import ConfidenceInterval, Estimate

__version__ = "0.1.0"

__all__ = [
    "ConfidenceInterval",
    "CrossCheck",
    "Estimate",
    "JudgeCalWarning",
    "JudgeData",
    "Posterior",
    "Prior",
    "crosscheck",
    "estimate",
    "lang_reiczigel_ci",
    "naive_wald_ci",
    "posterior",
    "rogan_gladen",
    "rogan_gladen_variance",
]
