"""benchmarks/within5_breakdown.py: its reasons agree with the rule's own pick (issue 24).

The reasons are computed apart from choose_random (from the regime margins with and without
the table's bans), so they are checked against what choose_random does on the same data.
"""

from __future__ import annotations

import numpy as np
from _script_modules import load_benchmark


def _module():
    return load_benchmark("within5_breakdown", "within5_breakdown_under_test")


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
    assert np.array_equal(np.isin(name, ["ppi_pp", "raised"]), choice == 0)  # CHOICES[0]
    own = intervals["ppi_pp"][1] - intervals["ppi_pp"][0]
    blaker = intervals["labels_only_blaker"][1] - intervals["labels_only_blaker"][0]
    # eligible but not picked: not PICK_MARGIN narrower than Blaker
    assert (own[name == "margin"] > (1 - PICK_MARGIN) * blaker[name == "margin"]).all()
    raised = name == "raised"  # picked at a raised level: wider than ppi_pp at 95%
    assert ((high - low)[raised] > own[raised]).all()
    # banned: without the bans the same data are picked or fail only the margin
    freed = wb.reasons(counts, intervals, wb._recommended(counts, m, n, target, free)[0],
                       target, free, free)  # fmt: skip
    assert set(np.array(wb.REASONS)[freed[name == "banned"]]) <= {"ppi_pp", "raised", "margin"}
    assert {"ppi_pp", "banned"} <= set(name.ravel())  # both reached on these cells
    sums = wb.tally(reason, low, high, intervals)
    ppi = intervals["ppi_python"][1] - intervals["ppi_python"][0]
    ok = np.isfinite(ppi)
    assert np.array_equal(sums["reps"].sum(axis=0), ok.sum(-1))
    excess = np.where(ok, (high - low) - ppi, 0.0).sum(-1)
    assert np.allclose((sums["rule"] - sums["ppi"]).sum(axis=0), excess)
