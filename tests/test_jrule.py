"""The fast J rule (``judgestats.bayes._jrule``) against the J integral written out directly.

``log R(theta, p) = log sum_i w_i g0(1 - p + theta J_i) g1(p + (1 - theta) J_i) + log half`` on
the engine's J window (``_terms.j_window``), with the unnormalised calibration Betas evaluated
here as ``(a - 1) log q + (b - 1) log(1 - q)`` after the engine's clip of q. The fast rule writes
the four logarithms' arguments as lines in the node coordinate; it must give the same values up
to rounding, including calibrations whose boxes reach 0 or 1 (clipped terms), flat Betas (terms
of weight zero) and the untruncated prior.
"""

from __future__ import annotations

import numpy as np
import pytest

from judgestats.bayes import _jrule
from judgestats.bayes._panels import gauss_legendre
from judgestats.bayes._terms import J_ORDER, j_window, p_window, rows_for
from judgestats.bayes.priors import Prior

CALIBRATIONS = [
    (70, 100, 90, 100),  # the coverage study's judge
    (5, 5, 3, 3),  # every item right: b0 = b1 = 1, terms of weight zero
    (0, 1, 1, 1),  # one item per arm
    (999_990, 1_000_000, 499_000, 500_000),  # boxes within 1e-5 of 1
    (30, 60, 31, 60),  # a judge near chance
    (0, 0, 3, 3),  # no class-0 items: under a Beta(0.5, 0.5) prior the box of q0 reaches 1
]
PRIORS = [Prior(), Prior(better_than_chance=False), Prior(q0=(0.5, 0.5), q1=(2.0, 1.0))]


def direct_log_r(band, t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The J rule at the pairs (t, p), written out (no code of ``_jrule``)."""
    x, w = gauss_legendre(J_ORDER)
    low, high = (v.reshape(t.shape) for v in j_window(band, t, p))
    ok = high > low
    half = np.where(ok, (high - low) / 2, 0.0)
    j = np.where(ok, low, 0.0)[:, None] + half[:, None] * (x + 1)  # (pairs, J)
    log_h = np.zeros(j.shape)
    for (a, b), q in (
        (band.beta0, 1 - p[:, None] + t[:, None] * j),
        (band.beta1, p[:, None] + (1 - t[:, None]) * j),
    ):
        q = np.clip(q, 1e-300, 1 - 1e-16)
        log_h += (a[0] - 1) * np.log(q) + (b[0] - 1) * np.log1p(-q)
    top = np.max(log_h, axis=1)
    with np.errstate(divide="ignore"):
        out = top + np.log(np.exp(log_h - top[:, None]) @ w) + np.log(half)
    return np.where(ok, out, -np.inf)


@pytest.mark.parametrize("prior", PRIORS, ids=["truncated", "untruncated", "jeffreys-ish"])
@pytest.mark.parametrize("counts", CALIBRATIONS, ids=lambda c: "-".join(map(str, c)))
def test_fast_rule_equals_the_direct_sum(counts, prior):
    k0, m0, k1, m1 = (np.array([float(v)]) for v in counts)
    band = rows_for(np.array([1.0]), np.array([2.0]), k0, m0, k1, m1, prior)
    theta = np.linspace(0.001, 0.999, 61)
    low, high, _ = (v[0] for v in p_window(band, theta[None, :]))
    across = np.linspace(-0.2, 1.2, 61)  # the window of p at each theta, and beyond it
    t = np.repeat(theta, across.size)
    p = np.clip((low[:, None] + (high - low)[:, None] * across).ravel(), 1e-6, 1 - 1e-6)
    expected = direct_log_r(band, t, p)
    got = _jrule.log_r(band, t, p)
    assert np.isfinite(expected).sum() > 100  # the grid meets the calibration's window
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-11, atol=1e-11)


def test_blocks_change_the_values_by_rounding_only(monkeypatch):
    k0, m0, k1, m1 = (np.array([float(v)]) for v in CALIBRATIONS[0])
    band = rows_for(np.array([1.0]), np.array([2.0]), k0, m0, k1, m1, Prior())
    rng = np.random.default_rng(3)
    t, p = rng.uniform(0.01, 0.99, (2, 5000))
    whole = _jrule.log_r(band, t, p)
    monkeypatch.setattr(_jrule, "PAIRS_PER_BLOCK", 7)
    small = _jrule.log_r(band, t, p)
    np.testing.assert_array_equal(np.isfinite(small), np.isfinite(whole))
    finite = np.isfinite(whole)
    assert finite.sum() > 1000
    np.testing.assert_allclose(small[finite], whole[finite], rtol=1e-14, atol=0)
