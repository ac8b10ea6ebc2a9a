"""The random-design exact posterior of theta against an independent brute-force reference.

Reference quantiles (2.5%, 50%, 97.5%) come from ``benchmarks/random_posterior_reference.py``,
which integrates the documented model (theta ~ Beta(1 + m1, 1 + m0) after folding in
m1 ~ Bin(m0 + m1, theta), uniform q0, q1 truncated to q0 + q1 > 1, k ~ Bin(n, p) on the unlabelled
items, k0 ~ Bin(m0, q0), k1 ~ Bin(m1, q1)) by nested Gauss-Legendre quadrature in (theta, q0, q1)
and shares no code with ``judgestats.bayes``. Produced by::

    cd benchmarks && PYTHONPATH=../src python -c "from random_posterior_reference import \
        reference_quantiles as r; print(r(900, 1000, 80, 100, 80, 100, level=2).tolist())"

(one call per case; ``random_design=False`` for the stratified cases at the end). Levels 1 and
2 agree to 2e-8 or better on every case, the untruncated reference matches the closed-form Beta
mixture to 1e-9, and a crude tensor-grid integration reproduces the conflicting cases to ~1e-5,
so the engine is held to 1e-4 (absolute), the accuracy its own docstring promises.

Where test and calibration data conflict the posterior sits where several factors are in
their tails at once. The engine's boxes each hold all but 1e-14 of one factor alone, and
``Rows._bridge`` widened them only where the kernel's window missed their range of p entirely;
partial conflicts were cut off, up to 0.08 off (900/1000 against arms of 80 in 100: q0's
conditional mode at 0.35, below box0's 0.425). ``Rows._reach`` now widens them by the deficit
bound of ``_tighten``; these cases agree to within 3e-4, the engine's refinement tolerance on
conflicting data (1e-2 of the 95% interval's width; 1e-3 brings the first two within 1e-5). One
case near theta = 1 stays 2.1e-4 off at the 2.5% quantile, before and after: not the boxes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from judgestats import JudgeData, posterior

TOL = 1e-4
#: Conflicting data: the refinement in exact.py stops at 1e-2 of the interval's width.
CONFLICT_TOL = 3e-4

AGREE = [
    ((400, 1000, 58982, 65536, 58982, 65536), (0.4966940754, 0.4993943030, 0.5020945586)),
    ((40, 50, 0, 0, 3, 3), (0.4701984151, 0.8432985767, 0.9924772559)),
    ((45, 50, 1, 3, 0, 1), (0.0710275181, 0.3987718440, 0.8005049618)),
    ((5000, 100000, 450, 500, 2, 2), (0.0007239568, 0.0031600621, 0.0089609619)),
    ((990000, 1000000, 2, 3, 1990, 2000), (0.9946780236, 0.9975755624, 0.9992578048)),
    ((10, 10, 9, 10, 1, 10), (0.3400068656, 0.5578051995, 0.7533773669)),
]

#: Conflicting data, out of the boxes before ``Rows._reach`` (the last was a "could not be
#: integrated" error: every calibration item judged wrong; reference at level 2).
CONFLICT = [
    ((900, 1000, 80, 100, 80, 100), (0.6262573051, 0.6990590455, 0.7607684775)),
    ((2000, 10000, 160, 200, 170, 200), (0.2575060414, 0.2968845632, 0.3426387742)),
    ((9000, 10000, 110, 200, 120, 200), (0.4943151240, 0.5543445414, 0.6131176073)),
    ((30000, 100000, 450, 500, 2, 2), (0.0025923607, 0.0117960546, 0.0332951283)),
    ((300000, 1000000, 900, 1000, 900, 1000), (0.3267756994, 0.3404203747, 0.3551702717)),
    ((10, 20, 0, 60, 0, 60), (0.4117939961, 0.5000000000, 0.5882060039)),
]

#: The stratified design's counterparts (flat theta prior, ``random_design=False`` in the
#: reference, level 2; level 1 agrees to 1e-13): theta moves to reconcile the counts, and the
#: engine agreed before and after ``Rows._reach`` (which leaves a flat theta prior alone).
STRATIFIED_CONFLICT = [
    ((20, 1000, 90, 100, 90, 100), (0.0000959643, 0.0025417952, 0.0119471675)),
    ((5, 1000, 80, 100, 90, 100), (0.0000360655, 0.0009835897, 0.0051552740)),
    ((900, 1000, 80, 100, 80, 100), (0.9600500698, 0.9910819434, 0.9996586927)),
    ((300000, 1000000, 900, 1000, 900, 1000), (0.2299773211, 0.2496452006, 0.2671061802)),
]

NEAR_ONE = ((700000, 1000000, 2, 3, 1990, 2000), (0.8818965813, 0.9571991805, 0.9924593681))


def _check(
    counts: tuple[int, ...], reference: tuple[float, float, float], tol: float, design="random"
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        post = posterior(JudgeData(*counts, design=design))
    got = np.asarray(post.quantile([0.025, 0.5, 0.975]), dtype=float)
    ci = post.ci(prob=0.95, kind="eti")
    np.testing.assert_allclose(got, reference, rtol=0, atol=tol)
    np.testing.assert_allclose([ci.low, ci.high], reference[::2], rtol=0, atol=tol)


@pytest.mark.parametrize(("counts", "reference"), AGREE, ids=[str(c) for c, _ in AGREE])
def test_random_posterior_matches_reference(counts, reference):
    _check(counts, reference, TOL)


@pytest.mark.parametrize(("counts", "reference"), CONFLICT, ids=[str(c) for c, _ in CONFLICT])
def test_random_posterior_conflicting_data_matches_reference(counts, reference):
    _check(counts, reference, CONFLICT_TOL)


@pytest.mark.xfail(strict=True, reason="2.1e-4 off at the 2.5% quantile near theta = 1")
def test_random_posterior_near_one_conflict_within_1e_4():
    _check(*NEAR_ONE, TOL)


def test_random_posterior_near_one_conflict_within_3e_4():
    _check(*NEAR_ONE, CONFLICT_TOL)


@pytest.mark.parametrize(
    ("counts", "reference"), STRATIFIED_CONFLICT, ids=[str(c) for c, _ in STRATIFIED_CONFLICT]
)
def test_stratified_posterior_conflicting_data_matches_reference(counts, reference):
    _check(counts, reference, TOL, design="stratified")
