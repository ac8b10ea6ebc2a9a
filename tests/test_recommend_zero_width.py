"""Issue 25 item 8: a zero-width interval is never recommended, whatever its table coverage.

With k = 0 the Rogan-Gladen estimate is clipped to 0 and the Lang-Reiczigel interval is (0, 0);
in the coverage table's cells at theta = 0 it covers (the truth sits on the bound), so the rule
used to recommend it. It must fall back to the next eligible interval that has width, or to the
guaranteed interval, and say why.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_recommend import DATA, synthetic_table

import judgestats as jc
from judgestats.exceptions import JudgeStatsWarning
from judgestats.recommendation import stratified_rule as rec


@pytest.fixture
def table(monkeypatch):
    def install(**values):
        fake = synthetic_table(**values)
        monkeypatch.setattr(rec, "coverage_table", lambda: fake)
        return fake

    return install


@pytest.mark.parametrize("k", [0, 1000])
def test_crosscheck_never_recommends_a_zero_width_interval(k):
    data = jc.JudgeData(k=k, n=1000, k0=18, m0=20, k1=18, m1=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        check = jc.crosscheck(data)
    lr = check.rows["rogan_gladen"]
    assert lr.high - lr.low == 0.0  # the case of the issue: Lang-Reiczigel is (0, 0) / (1, 1)
    rec_ = check.recommended
    assert rec_.width > 0.0
    assert rec_.method != "lang_reiczigel"
    assert rec_.low <= k / 1000 <= rec_.high
    assert "zero width" in rec_.reason


def test_zero_width_candidate_gives_way_to_the_next_eligible(table):
    table()  # every candidate eligible
    candidates = {
        "lang_reiczigel": (0.0, 0.0, 0.0),
        "bayes_eti": (0.01, 0.0, 0.05),
        "bayes_hdi": (0.0, 0.0, 0.04),
    }
    result = rec.recommend(DATA, 0.95, candidates)
    assert result.method == "bayes_hdi"
    assert "zero width" in result.reason
    assert "narrowest of the 2" in result.reason


def test_only_zero_width_eligible_falls_back_to_guaranteed(table):
    table(eti=0.90, hdi=0.90)  # only Lang-Reiczigel eligible, and it has zero width
    candidates = {
        "lang_reiczigel": (1.0, 1.0, 1.0),
        "bayes_eti": (0.99, 0.95, 1.0),
        "bayes_hdi": (1.0, 0.96, 1.0),
    }
    result = rec.recommend(DATA, 0.95, candidates)
    assert result.method == "guaranteed"
    assert result.width > 0.0
    assert "positive width" in result.reason and "zero width" in result.reason


def test_choose_skips_zero_width_rows(table):
    table()
    counts = tuple(np.array([v, v]) for v in (600, 1000, 45, 50, 46, 50))
    intervals = {
        "lang_reiczigel": (np.array([0.5, 0.3]), np.array([0.5, 0.4])),
        "bayes_eti": (np.array([0.4, 0.2]), np.array([0.6, 0.6])),
    }
    choice, _ = rec.choose(counts, intervals, 0.95)
    assert choice.tolist() == [1, 0]
