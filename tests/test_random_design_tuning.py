"""benchmarks/random_design.py, pass 2: the ban verdict on pooled looks (issue 24).

The looks are stubbed with fixed coverages, so the verdicts follow by hand: a cell is banned
where the mean over all its replications is below BAN_BELOW (0.946); a third look (four times
the tuning look) only where the two-look mean is within 2 SE of 0.946.
"""

from __future__ import annotations

import math

import numpy as np
from _script_modules import load_benchmark


def _module():
    return load_benchmark("random_design", "random_design_under_test")


def test_ban_verdict_pools_every_look(monkeypatch):
    rd = _module()
    reps = 8000
    # cells: far below, far above, just below on two looks (rescued by the third), just
    # below on two looks (confirmed by the third), not looked at (outside the mask)
    first = np.array([0.930, 0.949, 0.944, 0.944, 0.900])
    second = np.array([0.932, 0.958, 0.946, 0.944, 0.900])
    third = np.array([0.0, 0.0, 0.950, 0.944, 0.0])
    mask = np.array([True, True, True, True, False])
    calls = []

    def fake_recheck(table, cells, n, seed_key, workers):
        calls.append((cells.copy(), n))
        looks = second if len(calls) == 1 else third
        return np.where(cells, looks, np.nan)

    monkeypatch.setattr(rd, "recheck", fake_recheck)
    banned = rd.pooled_looks({}, first, mask, reps, (1,), 1)
    se_two = math.sqrt(0.95 * 0.05 / (2 * reps))  # 0.00172
    two = (first + second) / 2  # 0.931, 0.9535, 0.945, 0.944
    assert abs(two[2] - 0.946) < 2 * se_two and abs(two[3] - 0.946) < 2 * se_two
    assert abs(two[0] - 0.946) > 2 * se_two and abs(two[1] - 0.946) > 2 * se_two
    assert calls[0][1] == reps and calls[1][1] == 4 * reps
    assert calls[1][0].tolist() == [False, False, True, True, False]
    # third look: (8000 * 0.944 + 8000 * 0.946 + 32000 * 0.950) / 48000 = 0.9483 (cleared);
    # (8000 + 8000 + 32000) * 0.944 / 48000 = 0.944 (banned)
    assert banned.tolist() == [True, False, False, True, False]


def test_no_third_look_when_no_cell_is_near_the_threshold(monkeypatch):
    rd = _module()
    calls = []

    def fake_recheck(table, cells, n, seed_key, workers):
        calls.append(n)
        return np.where(cells, 0.96, np.nan)

    monkeypatch.setattr(rd, "recheck", fake_recheck)
    banned = rd.pooled_looks({}, np.array([0.949, 0.93]), np.array([True, False]), 8000, (1,), 1)
    assert banned.tolist() == [False, False] and calls == [8000]


def test_an_undercovering_ppi_pick_is_raised_step_by_step_then_banned(monkeypatch):
    # one grid of two cells per target: cell 0 undercovers while PPI++ is picked there (half the
    # picks), cell 1 covers; every cell starts at the lowest level (0.93), and the tuning raises
    # cell 0's one step a round (0.93 -> 0.99: six steps) and bans it on the seventh round,
    # after which Blaker's covers there; cell 1 stays at 0.93
    rd = _module()
    shape = (2, len(rd.METHODS), 1, 1, 1, 1, 2)
    table = {"coverage": np.full(shape, 0.95)}
    seen = []

    def fake_rule_pass(tab, reps, seed_key, workers):
        ppi = rd.METHODS.index("ppi_pp")
        seen.append(tab["steps"][0, ppi, 0, 0, 0, 0].tolist())
        banned = tab["banned"][:, ppi]  # (target, m, n, q0, q1, theta)
        coverage = np.where(banned, 0.96, np.array([0.93, 0.96]))
        picks = np.zeros((2, 5, 1, 1, 1, 1, 2))  # CHOICES: ppi_pp first
        picks[:, 0] = np.where(banned, 0.0, 0.5)
        return {"coverage": coverage, "picks": picks}

    monkeypatch.setattr(rd, "rule_pass", fake_rule_pass)
    monkeypatch.setattr(rd, "pooled_looks", lambda tab, first, mask, *rest: mask)
    out, history = rd.tune_levels_and_bans(table, 8000, 1, 1)
    ppi = rd.METHODS.index("ppi_pp")
    assert seen == [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [6, 0], [6, 0]]
    assert [(h["new_steps"], h["new_bans"]) for h in history] == [(2, 0)] * 6 + [(0, 2), (0, 0)]
    assert out["banned"][:, ppi, 0, 0, 0, 0].tolist() == [[True, False], [True, False]]
    assert out["steps"][:, ppi, 0, 0, 0, 0].tolist() == [[6, 0], [6, 0]]
    assert not out["banned"][:, rd.METHODS.index("posterior_eti")].any()
