"""Shared inputs of the stratified-calibration tests (tests/test_stratified*.py)."""

from __future__ import annotations

import warnings

import judgestats as jc
from judgestats.stratified import StratifiedData


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        return function(*args, **kwargs)


def counts(k, n, k0, m0, k1, m1):
    return {"k": k, "n": n, "k0": k0, "m0": m0, "k1": k1, "m1": m1}


# three strata: A p = .55, q0 = .9, q1 = .8; B p = .6, q0 = .75, q1 = .95; C p = .7, q0 = .6,
# q1 = .9; test shares .5, .3, .2
THREE = {
    "A": counts(275, 500, 90, 100, 80, 100),
    "B": counts(180, 300, 60, 80, 95, 100),
    "C": counts(140, 200, 30, 50, 45, 50),
}

# noise-free counts: "easy" has theta = .9 and a judge with q0 = q1 = .95 (p = .86), "hard" has
# theta = .4 and q0 = q1 = .7 (p = .46); test shares .8 / .2; true overall theta = .8
EASY_HARD_TEST = {"easy": (688, 800), "hard": (92, 200)}


def easy_hard(m0: tuple[int, int], m1: tuple[int, int], q=(0.95, 0.7)) -> StratifiedData:
    """The easy/hard test counts with calibration arms m0, m1 per stratum at the judges' rates."""
    table = {}
    for i, (name, (k, n)) in enumerate(EASY_HARD_TEST.items()):
        k0, k1 = round(q[i] * m0[i]), round(q[i] * m1[i])
        table[name] = counts(k, n, k0, m0[i], k1, m1[i])
    return StratifiedData.from_counts(table)
