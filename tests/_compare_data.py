"""Shared inputs of the two-model comparison tests (tests/test_compare_*.py)."""

from __future__ import annotations

import numpy as np

from judgestats import JudgeData, ModelLabels


def labels(cells, calib=None, rng=None):
    """ModelLabels pair from verdict cells (both, A only, B only, neither) and calibration counts.

    ``calib`` = ((k0, m0, k1, m1) of A, (k0, m0, k1, m1) of B or None).
    """
    both, a_only, b_only, neither = cells
    ya = np.array([1] * both + [1] * a_only + [0] * b_only + [0] * neither)
    yb = np.array([1] * both + [0] * a_only + [1] * b_only + [0] * neither)
    out = []
    for y, c in zip((ya, yb), calib, strict=True):
        if c is None:
            out.append(ModelLabels(y))
            continue
        k0, m0, k1, m1 = c
        human = np.array([0] * m0 + [1] * m1)
        judge = np.array([0] * k0 + [1] * (m0 - k0) + [1] * k1 + [0] * (m1 - k1))
        if rng is not None:
            order = rng.permutation(human.size)
            human, judge = human[order], judge[order]
        out.append(ModelLabels(y, human, judge))
    return out


A_COUNTS = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
B_COUNTS = JudgeData(k=50, n=100, k0=38, m0=50, k1=44, m1=50)
