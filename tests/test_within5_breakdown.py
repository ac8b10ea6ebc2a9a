"""benchmarks/within5_breakdown.py: its reasons agree with the rule's own pick (issue 24).

The reasons are computed apart from choose_random (from the regime margins with and without
the table's bans), so they are checked against what choose_random does on the same data.
"""

from __future__ import annotations

import numpy as np
from _script_modules import load_benchmark


def _module():
    return load_benchmark("within5_breakdown", "within5_breakdown_under_test")


def _offered_width(counts, target, table, own):
    """ppi_pp's width as the rule compares it with Blaker's: at its regime's level, never below
    95% (own: its width at 95%)."""
    from judgestats.designs.prediction_powered import ppi_pp_counts
    from judgestats.recommendation.random_rule import (
        LEVEL_STEPS,
        NOMINAL_STEP,
        random_regime_coverage,
    )

    flat = tuple(np.asarray(c).reshape(-1) for c in counts)
    step = random_regime_coverage(flat, 0.95, target, table=table).step[:, 0]
    step = np.maximum(np.where(np.isnan(step), NOMINAL_STEP, step), NOMINAL_STEP).astype(int)
    offered = own.reshape(-1).copy()
    for s in set(step.tolist()) - {NOMINAL_STEP}:
        rows = step == s
        chosen = (c[rows] for c in flat)
        _, low, high, _ = ppi_pp_counts(*chosen, target=target, confidence_level=LEVEL_STEPS[s])
        offered[rows] = high - low
    return offered.reshape(own.shape)


def test_reasons_match_the_rule_and_partition_the_excess():
    from judgestats.recommendation.random_rule import PICK_MARGIN, random_coverage_table

    wb = _module()
    table = random_coverage_table()
    free = dict(table, banned=np.zeros_like(table["banned"]))
    m, n, target = 50, 10_000, "population"
    cells = (np.array([0.9, 0.97, 0.7]), np.array([0.97, 0.9, 0.7]), np.array([0.5, 0.9, 0.3]))
    counts, truth = wb.simulate(m, n, 300, np.random.default_rng(3), cells)
    choice, low, high, intervals = wb._recommended(counts, m, n, target, table)
    reason = wb.reasons(counts, intervals, choice, target, table, free)
    name = np.array(wb.REASONS)[reason]
    picked = choice == 0  # ppi_pp is CHOICES[0]
    assert np.isin(name[picked], ["ppi_pp", "raised"]).all() and picked[name == "ppi_pp"].all()
    own = intervals["ppi_pp"][1] - intervals["ppi_pp"][0]
    blaker = intervals["labels_only_blaker"][1] - intervals["labels_only_blaker"][0]
    # eligible but not picked: not PICK_MARGIN narrower than Blaker at the level it is offered at
    offered = _offered_width(counts, target, table, own)
    assert (offered[name == "margin"] > (1 - PICK_MARGIN) * blaker[name == "margin"]).all()
    # raised and not picked: narrow enough at 95%, not at the raised level
    lost = (name == "raised") & ~picked
    assert lost.any() and (own[lost] <= (1 - PICK_MARGIN) * blaker[lost]).all()
    assert (offered[lost] > (1 - PICK_MARGIN) * blaker[lost]).all()
    raised = name == "raised"  # picked at a raised level: wider than ppi_pp at 95%
    assert ((high - low)[raised] > own[raised]).all()
    # banned: without the bans the same data are picked or fail only the margin
    freed = wb.reasons(counts, intervals, wb._recommended(counts, m, n, target, free)[0],
                       target, free, free)  # fmt: skip
    assert set(np.array(wb.REASONS)[freed[name == "banned"]]) <= {"ppi_pp", "raised", "margin"}
    assert {"ppi_pp", "raised", "margin"} <= set(name.ravel())  # reached on these cells
    # every cell banned: no PPI++ pick, and each replication eligible without the bans is "banned"
    closed = dict(table, banned=np.ones_like(table["banned"]))
    shut = wb.reasons(counts, intervals, wb._recommended(counts, m, n, target, closed)[0],
                      target, closed, free)  # fmt: skip
    shut_names = np.array(wb.REASONS)[shut]
    eligible_unbanned = np.isin(name, ["ppi_pp", "raised", "margin", "banned"])
    assert np.array_equal(shut_names == "banned", eligible_unbanned)
    sums = wb.tally(reason, low, high, intervals)
    ppi = intervals["ppi_python"][1] - intervals["ppi_python"][0]
    ok = np.isfinite(ppi)
    assert np.array_equal(sums["reps"].sum(axis=0), ok.sum(-1))
    excess = np.where(ok, (high - low) - ppi, 0.0).sum(-1)
    assert np.allclose((sums["rule"] - sums["ppi"]).sum(axis=0), excess)
