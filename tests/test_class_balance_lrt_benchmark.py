"""benchmarks/class_balance_size.py: the profile likelihood-ratio test of the class balance.

Counts rows are (k, n, k0, m0, k1, m1), as the benchmark's ``draw`` gives them.
"""

from __future__ import annotations

import numpy as np
import pytest
from _script_modules import load_benchmark

#: 20 rows with a test (both labelled classes, q0-hat + q1-hat > 1): zeros in k, full arms
#: (k0 = m0, k1 = m1), Rogan-Gladen estimates clipped at 0 and 1, tiny and large samples.
ROWS = [
    (0, 1000, 45, 50, 45, 50), (1000, 1000, 45, 50, 45, 50), (0, 10, 1, 1, 1, 1),
    (10, 10, 1, 1, 1, 1), (5, 10, 1, 1, 1, 1), (0, 100, 5, 5, 3, 5), (100, 100, 5, 5, 3, 5),
    (50, 100, 9, 9, 1, 1), (30, 1000, 98, 98, 2, 2), (49000, 10**6, 93, 98, 2, 2),
    (20000, 10**6, 98, 98, 2, 2), (970000, 10**6, 2, 2, 93, 98), (500, 1000, 10, 10, 10, 10),
    (3, 100, 19, 20, 70, 80), (97, 100, 19, 20, 70, 80), (1, 50, 6, 10, 3, 4),
    (40, 50, 6, 10, 3, 4), (7000, 10000, 140, 200, 180, 200), (0, 1, 2, 3, 2, 3),
    (1, 1, 2, 3, 2, 3),
]  # fmt: skip


def _module():
    return load_benchmark("class_balance_size", "class_balance_size_under_test")


def test_zero_when_phi_equals_the_rogan_gladen_estimate():
    # q0 = q1 = 0.9, phi = 0.5, p-hat = 0.5: the Rogan-Gladen estimate (0.5 - 0.1) / 0.8 = 0.5.
    statistic, p_value = _module().lrt(500, 1000, 45, 50, 45, 50)
    assert abs(statistic) < 1e-8
    assert p_value == pytest.approx(1.0)


def test_statistic_is_never_negative():
    module = _module()
    for row in ROWS:
        statistic, p_value = module.lrt(*row)
        assert statistic >= 0, row
        assert 0 <= p_value <= 1, row


def test_a_clear_shift_is_rejected():
    # m = 200: phi = 180 / 200 = 0.9, q0 = q1 = 0.9; p-hat = 0.5 gives the Rogan-Gladen 0.5.
    statistic, p_value = _module().lrt(500, 1000, 18, 20, 162, 180)
    assert statistic > 20
    assert p_value < 1e-6


def test_no_test_without_both_classes_or_a_better_than_chance_judge():
    module = _module()
    for row in [(5, 10, 0, 0, 3, 4), (5, 10, 3, 4, 0, 0), (5, 10, 2, 4, 2, 4)]:
        with pytest.raises(ValueError):
            module.lrt(*row)


def test_closed_form_maxima_match_a_numerical_search():
    """No start of a bounded quasi-Newton search beats the closed-form maxima."""
    from scipy.optimize import minimize

    module = _module()
    bounds = [(1e-10, 1 - 1e-10)] * 3
    for row in [(30, 1000, 98, 98, 2, 2), (3, 100, 19, 20, 70, 80), (1, 50, 6, 10, 3, 4),
                (49000, 10**6, 93, 98, 2, 2), (7000, 10000, 140, 200, 180, 200)]:  # fmt: skip
        k, n, k0, m0, k1, m1 = row
        theta_l = m1 / (m0 + m1)
        unrestricted = module.log_likelihood(*module.unrestricted_max(*row), *row)
        theta, q0, q1 = module.restricted_max(*row)
        restricted = module.log_likelihood(theta, theta, q0, q1, *row)
        assert restricted <= unrestricted + 1e-9
        starts = [np.clip([t, k0 / m0, k1 / m1], 1e-3, 1 - 1e-3) for t in (0.05, 0.5, 0.95)]
        starts += [np.array([0.5, 0.9, 0.9])]

        def restricted_minus(x, row=row):
            return -module.log_likelihood(x[0], x[0], x[1], x[2], *row)

        def unrestricted_minus(x, row=row, theta_l=theta_l):
            return -module.log_likelihood(theta_l, x[0], x[1], x[2], *row)

        for x0 in starts:
            found = minimize(restricted_minus, x0, bounds=bounds, method="L-BFGS-B")
            assert -found.fun <= restricted + 1e-7, row
            found = minimize(unrestricted_minus, x0, bounds=bounds, method="L-BFGS-B")
            if found.x[1] + found.x[2] > 1:
                assert -found.fun <= unrestricted + 1e-7, row
